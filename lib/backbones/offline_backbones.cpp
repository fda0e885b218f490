#include "backbones/offline_backbones.h"

#include <algorithm>

#include "backbones/backbone_registry.h"
#include "pretrain/backbone_builder.h"
#include "pretrain/backbone_recipes.h"
#include "util/sha256.h"

namespace capaboost {
namespace {

constexpr const char* kRandomSuffix = "-random";

// The run's data root reaches recipes that pre-train on task text.
std::string offline_directory(const std::string& profile, const BackboneContext& context) {
  auto env = BackboneEnvironment::from_environment();
  if (!context.data_root.empty()) env.data_root = context.data_root;
  return ensure_backbone(profile, env);
}

// The recipe without the corpus manifest: computable without building anything; the corpus itself is
// pinned by the package versions the Makefile installs.
std::string recipe_fingerprint(const std::string& profile) {
  return "recipe:" + sha256_hex(backbone_recipe(profile).key_material("").dump());
}

bool register_offline(const std::string& profile) {
  const auto prepare = [profile](const BackboneContext& context) { offline_directory(profile, context); };
  const bool pretrained = register_backbone(
      {profile, "the suite's offline pre-trained '" + profile + "' encoder (built on first use, cached)",
       [profile](const TaskHead& head, const BackboneContext& context) {
         Backbone backbone = load_checkpoint(offline_directory(profile, context), head);
         backbone.description = "offline pre-trained '" + profile + "' encoder " + backbone.description;
         return backbone;
       },
       [profile] { return recipe_fingerprint(profile); }, prepare});
  // Same architecture and tokenizer, random weights: the baseline that shows what pre-training buys.
  const bool random = register_backbone(
      {profile + kRandomSuffix, "the '" + profile + "' encoder's architecture and tokenizer, random weights",
       [profile](const TaskHead& head, const BackboneContext& context) {
         Backbone backbone = load_checkpoint_randomly_initialised(offline_directory(profile, context), head);
         backbone.description = "offline '" + profile + "' encoder: " + backbone.description;
         return backbone;
       },
       [profile] { return recipe_fingerprint(profile); }, prepare});
  return pretrained && random;
}

[[maybe_unused]] const bool registered_offline_backbones = [] {
  for (const auto& profile : backbone_profiles()) register_offline(profile);
  return true;
}();

}  // namespace

std::optional<std::string> offline_backbone_profile(const std::string& model) {
  const std::string suffix = kRandomSuffix;
  const bool random_twin =
      model.size() > suffix.size() && model.compare(model.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string profile = random_twin ? model.substr(0, model.size() - suffix.size()) : model;
  const auto profiles = backbone_profiles();
  if (std::find(profiles.begin(), profiles.end(), profile) == profiles.end()) return std::nullopt;
  return profile;
}

}  // namespace capaboost
