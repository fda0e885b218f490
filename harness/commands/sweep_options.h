#pragma once
// Options shared by the sweep sub-commands (plan, run, status, report) and the spec loading they share.

#include "plan/run_config.h"
#include "spec/spec.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace capaboost::harness {

struct SweepOptions {
  std::string spec_path;
  std::string profile = "mini";
  std::string results_dir = "results";
  std::string data_root;  ///< empty: $CAPABOOST_DATA_DIR, else ../shared/data
  /// Only the runs of these seeds (empty: every run). A first table from one seed before the rest:
  /// `run SPEC --seeds 42`, `report SPEC --seeds 42`, then `run SPEC` does the other seeds.
  std::vector<int64_t> seeds;
};

/// Adds SPEC, --profile, --results, --data-root and --seeds to `sub`.
void add_sweep_options(CLI::App* sub, SweepOptions& options, bool spec_required = true);

/// A checked spec and its planned runs under the chosen profile.
struct Sweep {
  Spec spec;
  std::vector<RunConfig> runs;  ///< the profile's runs, only those of --seeds when it is given
  std::vector<std::string> axes;
  /// The keys of every run the profile plans, --seeds or not: a record outside them is stale.
  std::set<std::string> planned_keys;
};

/// Loads the spec, checks every profile's runs (plan/plan.h) and plans the chosen profile with data
/// and model fingerprints; a bad spec throws SpecError listing every problem. With `seeds`, keeps the
/// runs of those seeds; a seed the profile does not plan is refused, naming the ones it does.
Sweep load_sweep(const SweepOptions& options);

}  // namespace capaboost::harness
