#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "pretrain/backbone_builder.h"
#include "pretrain/backbone_recipes.h"
#include "pretrain/corpus_stages.h"
#include "pretrain/vision_backbone.h"

namespace capaboost::harness {

Command backbone_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "backbone",
      "Pre-train (or find in the cache) the offline encoder of a profile (mini, mini-deberta, mini-task-text, mini-task-text-long, "
      "smoke; the vision backbones mini-vit, smoke-vit); prints its directory");
  struct Options {
    std::string profile = "mini";
    std::string pilot;
    std::string cache;
    std::string data_root;
  };
  auto options = std::make_shared<Options>();
  std::vector<std::string> profiles = backbone_profiles();
  for (const auto& vision : vision_backbone_profiles()) profiles.push_back(vision);
  sub->add_option("--profile", options->profile, "backbone recipe")
      ->check(CLI::IsMember(profiles))
      ->capture_default_str();
  sub->add_option("--pilot", options->pilot,
                  "build a pilot variant of the profile instead (mini: absolute, relative_key, "
                  "relative_key_query), cached as <profile>+<pilot>");
  sub->add_option("--cache", options->cache, "cache root (default: $CAPABOOST_CACHE or ~/.cache/capaboost)");
  sub->add_option("--data-root", options->data_root,
                  "GLUE data root for recipes with task text (mini-task-text[-long]; default: $CAPABOOST_DATA_DIR, else "
                  "../shared/data)");
  return {sub, [options] {
            auto env = options->cache.empty() ? BackboneEnvironment::from_environment()
                                              : BackboneEnvironment::at(options->cache);
            if (!options->data_root.empty()) env.data_root = options->data_root;
            const auto vision = vision_backbone_profiles();
            if (std::find(vision.begin(), vision.end(), options->profile) != vision.end()) {
              TORCH_CHECK(options->pilot.empty(), "--pilot: the vision backbone ", options->profile, " has no pilots");
              fmt::print("{}\n", ensure_vision_backbone(options->profile, env));
              return 0;
            }
            const auto recipe = options->pilot.empty() ? backbone_recipe(options->profile)
                                                       : backbone_pilot_recipe(options->profile, options->pilot);
            fmt::print("{}\n", ensure_backbone(recipe, corpus_backbone_stages(recipe, env), env));
            return 0;
          }};
}

}  // namespace capaboost::harness
