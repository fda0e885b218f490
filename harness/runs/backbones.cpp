#include "runs/backbones.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>

#include "models/roberta_pretrained.h"
#include "data/sha256.h"
#include "models/roberta_config.h"
#include "pretrain/backbone_builder.h"
#include "pretrain/backbone_recipes.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

namespace {

std::shared_ptr<Tokenizer> roberta_base_tokenizer(const BackboneContext& context) {
  const fs::path dir = fs::path(context.data_root) / "tokenizers" / "roberta-base";
  TORCH_CHECK(fs::exists(dir / "vocab.json") && fs::exists(dir / "merges.txt"),
              "backbone: roberta-base's tokenizer files (vocab.json, merges.txt) are not in ", dir.string(),
              "; set CAPABOOST_DATA_DIR (or the spec's data_root) to a folder with tokenizers/roberta-base/");
  return load_tokenizer(dir.string());
}

Backbone random_backbone(const RobertaOptions& shape, const std::string& what, int64_t num_labels,
                         const BackboneContext& context) {
  Backbone backbone;
  backbone.tokenizer = roberta_base_tokenizer(context);
  auto options = shape;
  options.vocab_size(backbone.tokenizer->vocab_size()).num_labels(num_labels);
  backbone.model = RobertaForSequenceClassification(options);
  backbone.description = what + ", randomly initialised, roberta-base tokenizer";
  return backbone;
}

Backbone hub_checkpoint(const std::string& name, int64_t num_labels);
Backbone checkpoint_backbone(const fs::path& dir, int64_t num_labels);

// The suite's own pre-trained encoders (pretrain/backbone_recipes.h): built on first use (minutes),
// then read from the cache.
std::string offline_backbone_dir(const std::string& profile) {
  return ensure_backbone(profile, BackboneEnvironment::from_environment());
}

Backbone pretrained_offline(const std::string& profile, int64_t num_labels) {
  Backbone backbone = checkpoint_backbone(offline_backbone_dir(profile), num_labels);
  backbone.description = "offline pre-trained '" + profile + "' encoder " + backbone.description;
  return backbone;
}

// The same architecture and tokenizer as a pre-trained offline encoder, with random weights: the
// baseline that shows what pre-training buys.
Backbone random_offline(const std::string& profile, int64_t num_labels) {
  const fs::path dir = offline_backbone_dir(profile);
  Backbone backbone;
  backbone.tokenizer = load_tokenizer(dir.string());
  auto options = load_roberta_config((dir / kConfigFileName).string());
  options.num_labels(num_labels).label_names({});
  backbone.model = RobertaForSequenceClassification(options);
  backbone.description = "architecture and tokenizer of the offline '" + profile + "' encoder (" + dir.string() +
                         "), randomly initialised";
  return backbone;
}

using Builder = std::function<Backbone(int64_t num_labels, const BackboneContext&)>;

const std::map<std::string, Builder>& named_backbones() {
  static const std::map<std::string, Builder> backbones = {
      {"roberta-base-random",
       [](int64_t num_labels, const BackboneContext& context) {
         return random_backbone(RobertaOptions(), "RoBERTa-base shape (12×768)", num_labels, context);
       }},
      {"roberta-base", [](int64_t num_labels, const BackboneContext&) { return hub_checkpoint("roberta-base", num_labels); }},
      {"mini", [](int64_t num_labels, const BackboneContext&) { return pretrained_offline("mini", num_labels); }},
      {"mini-random", [](int64_t num_labels, const BackboneContext&) { return random_offline("mini", num_labels); }},
      {"smoke", [](int64_t num_labels, const BackboneContext&) { return pretrained_offline("smoke", num_labels); }},
      {"smoke-random", [](int64_t num_labels, const BackboneContext&) { return random_offline("smoke", num_labels); }},
      {"tiny-random",
       [](int64_t num_labels, const BackboneContext& context) {
         return random_backbone(RobertaOptions()
                                    .hidden_size(32)
                                    .num_hidden_layers(2)
                                    .num_attention_heads(4)
                                    .intermediate_size(64)
                                    .max_position_embeddings(130),
                                "tiny RoBERTa (2×32)", num_labels, context);
       }},
  };
  return backbones;
}

Backbone checkpoint_backbone(const fs::path& dir, int64_t num_labels) {
  Backbone backbone;
  backbone.tokenizer = load_tokenizer(dir.string());  // byte-level BPE or SentencePiece, by the files present
  auto loaded = load_roberta_for_sequence_classification(dir.string(), num_labels);
  backbone.model = loaded.model;
  backbone.pretrained = true;
  backbone.description = "checkpoint " + dir.string();
  return backbone;
}

// Downloaded Hugging Face checkpoints live in $CAPABOOST_CHECKPOINTS/<name> (default
// ~/.cache/capaboost/checkpoints/<name>); nothing can be downloaded at run time on an offline machine.
fs::path checkpoint_root() {
  if (const char* env = std::getenv("CAPABOOST_CHECKPOINTS"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : ".") / ".cache" / "capaboost" / "checkpoints";
}

Backbone hub_checkpoint(const std::string& name, int64_t num_labels) {
  const fs::path dir = checkpoint_root() / name;
  TORCH_CHECK(fs::exists(dir / "config.json"), "model '", name, "' needs its pre-trained checkpoint in ", dir.string(),
              " (config.json, model.safetensors, vocab.json, merges.txt); with internet: `huggingface-cli download ",
              name, " config.json model.safetensors vocab.json merges.txt --local-dir ", dir.string(),
              "`, or set CAPABOOST_CHECKPOINTS to the folder that holds it. Offline, use model: mini.");
  return checkpoint_backbone(dir, num_labels);
}

}  // namespace

std::vector<std::string> backbone_names() {
  std::vector<std::string> names;
  for (const auto& entry : named_backbones()) names.push_back(entry.first);
  return names;
}

std::optional<std::string> offline_backbone_profile(const std::string& model) {
  const std::string suffix = "-random";
  const bool random_twin =
      model.size() > suffix.size() && model.compare(model.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string profile = random_twin ? model.substr(0, model.size() - suffix.size()) : model;
  const auto profiles = backbone_profiles();
  if (std::find(profiles.begin(), profiles.end(), profile) == profiles.end()) return std::nullopt;
  return profile;
}

std::string offline_backbone_fingerprint(const nlohmann::json& parameters) {
  const auto profile = offline_backbone_profile(parameters.value("model", std::string()));
  if (!profile) return "";
  // The recipe without the corpus manifest: computable without building anything; the corpus itself
  // is pinned by the package versions the Makefile installs.
  return "recipe:" + capaboost::sha256_hex(backbone_recipe(*profile).key_material("").dump());
}

Backbone load_backbone(const std::string& name, int64_t num_labels, const BackboneContext& context) {
  const auto named = named_backbones().find(name);
  if (named != named_backbones().end()) return named->second(num_labels, context);
  if (fs::exists(fs::path(name) / "config.json")) return checkpoint_backbone(name, num_labels);
  TORCH_CHECK(false, "unknown model '", name, "': not one of ", fmt::format("{}", fmt::join(backbone_names(), ", ")),
              " and not a directory with config.json (a Hugging Face-layout checkpoint)");
  return {};
}

}  // namespace capaboost::harness
