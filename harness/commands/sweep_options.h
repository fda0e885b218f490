#pragma once
// Options shared by the sweep sub-commands (plan, run, status, report) and the spec loading they share.

#include "plan/run_config.h"
#include "spec/spec.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace capaboost::harness {

struct SweepOptions {
  std::string spec_path;
  std::string profile = "mini";
  std::string results_dir = "results";
  std::string data_root;  ///< empty: $CAPABOOST_DATA_DIR, else ../shared/data
};

/// Adds SPEC, --profile, --results and --data-root to `sub`.
void add_sweep_options(CLI::App* sub, SweepOptions& options, bool spec_required = true);

/// A checked spec and its planned runs under the chosen profile.
struct Sweep {
  Spec spec;
  std::vector<RunConfig> runs;
  std::vector<std::string> axes;
};

/// Loads the spec, checks every profile's runs (plan/plan.h) and plans the chosen profile with data
/// and model fingerprints; a bad spec throws SpecError listing every problem.
Sweep load_sweep(const SweepOptions& options);

}  // namespace capaboost::harness
