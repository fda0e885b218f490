#include "commands/sweep_options.h"

#include "backbones/backbone_registry.h"
#include "plan/data_fingerprint.h"
#include "plan/expansion.h"
#include "plan/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <stdexcept>

namespace capaboost::harness {

void add_sweep_options(CLI::App* sub, SweepOptions& options, bool spec_required) {
  auto* spec = sub->add_option("spec", options.spec_path, "experiment spec (experiments/*.yaml)");
  if (spec_required) spec->required()->check(CLI::ExistingFile);
  sub->add_option("--profile", options.profile, "paper | cpu (the real pre-trained encoder, minilm) | mini (the offline encoders) | smoke (default: mini)")
      ->check(CLI::IsMember(profile_names()));
  sub->add_option("--results", options.results_dir, "results folder (run records and index)");
  sub->add_option("--data-root", options.data_root, "data root (default: $CAPABOOST_DATA_DIR or ../shared/data)");
  sub->add_option("--seeds", options.seeds,
                  "only the runs of these seeds, e.g. --seeds 42 for a first table from one seed (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
}

namespace {

/// A run's seed, when it has one.
std::optional<int64_t> run_seed(const RunConfig& run) {
  const auto seed = run.config.find("seed");
  if (seed == run.config.end() || !seed->is_number_integer()) return std::nullopt;
  return seed->get<int64_t>();
}

/// The runs of `seeds` among `runs`; throws naming the profile's seeds when one of `seeds` has no run.
std::vector<RunConfig> runs_of_seeds(const std::vector<RunConfig>& runs, const std::vector<int64_t>& seeds,
                                     const std::string& profile) {
  std::set<int64_t> planned;
  for (const auto& run : runs) {
    if (const auto seed = run_seed(run)) planned.insert(*seed);
  }
  for (const int64_t seed : seeds) {
    if (planned.count(seed)) continue;
    throw std::invalid_argument(
        planned.empty() ? fmt::format("--seeds {}: the runs of profile '{}' have no seed", seed, profile)
                        : fmt::format("--seeds {}: profile '{}' plans no run with that seed; its seeds are {}", seed,
                                      profile, fmt::join(planned, ", ")));
  }
  std::vector<RunConfig> kept;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(kept), [&](const RunConfig& run) {
    const auto seed = run_seed(run);
    return seed && std::find(seeds.begin(), seeds.end(), *seed) != seeds.end();
  });
  return kept;
}

}  // namespace

Sweep load_sweep(const SweepOptions& options) {
  Sweep sweep;
  sweep.spec = load_checked_spec(options.spec_path);
  const std::string root = resolve_data_root(options.data_root);
  sweep.runs = plan_runs(
      sweep.spec, options.profile, [&](const nlohmann::json& config) { return data_fingerprint(config, root); },
      [](const nlohmann::json& config) {
        return config.contains("model") ? backbone_fingerprint(config.at("model").get<std::string>()) : std::string();
      });
  sweep.axes = axis_names(sweep.spec);
  for (const auto& run : sweep.runs) sweep.planned_keys.insert(run.key);
  if (!options.seeds.empty()) sweep.runs = runs_of_seeds(sweep.runs, options.seeds, options.profile);
  return sweep;
}

}  // namespace capaboost::harness
