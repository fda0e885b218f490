#include <fmt/format.h>

#include <string>

#include "commands/commands.h"
#include "pretrain/backbone_builder.h"
#include "pretrain/backbone_recipes.h"
#include "pretrain/corpus_stages.h"

namespace capaboost::harness {

Command backbone_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "backbone",
      "Pre-train (or find in the cache) the offline encoder of a profile (mini, mini-deberta, smoke); prints its directory");
  struct Options {
    std::string profile = "mini";
    std::string pilot;
    std::string cache;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("--profile", options->profile, "backbone recipe")
      ->check(CLI::IsMember(backbone_profiles()))
      ->capture_default_str();
  sub->add_option("--pilot", options->pilot,
                  "build a pilot variant of the profile instead (mini: absolute, relative_key, "
                  "relative_key_query), cached as <profile>+<pilot>");
  sub->add_option("--cache", options->cache, "cache root (default: $CAPABOOST_CACHE or ~/.cache/capaboost)");
  return {sub, [options] {
            const auto env = options->cache.empty() ? BackboneEnvironment::from_environment()
                                                    : BackboneEnvironment::at(options->cache);
            const auto recipe = options->pilot.empty() ? backbone_recipe(options->profile)
                                                       : backbone_pilot_recipe(options->profile, options->pilot);
            fmt::print("{}\n", ensure_backbone(recipe, corpus_backbone_stages(recipe, env), env));
            return 0;
          }};
}

}  // namespace capaboost::harness
