#pragma once
// Planning: a spec's runs resolved against what their measure, method and task declare (every default
// filled, every value checked), with their keys. Problems point at the spec line that caused them.
//
//   const Spec spec = load_checked_spec("experiments/table1_rank.yaml");   // every profile checked
//   for (const auto& run : plan_runs(spec, "mini", data, models)) … run.key, run.config …

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/run_config.h"
#include "spec/spec.h"

namespace capaboost::harness {

/// Returns the dataset fingerprint of a run's config ("none" when it has no dataset).
using DataFingerprint = std::function<std::string(const nlohmann::json& config)>;
/// Returns the model fingerprint of a run's config (empty when the model needs none).
using ModelFingerprint = std::function<std::string(const nlohmann::json& config)>;

struct Resolved {
  std::vector<RunConfig> runs;  ///< the runs that resolved, keys filled, each key once per label
  std::vector<Diagnostic> diagnostics;
  std::set<std::string> used_defaults;  ///< names in the spec's defaults some run took
};

/// Resolves the runs of `spec` under `profile`. Explicit parameters (rows, axes, lr_grid, seeds) a run
/// does not take are problems; shared ones (defaults, a profile's set) apply where a run takes them.
/// Null fingerprint functions give "none" and "".
Resolved resolve_runs(const Spec& spec, const std::string& profile, const DataFingerprint& data = nullptr,
                      const ModelFingerprint& model = nullptr);

/// load_spec, then every profile's runs resolved: all problems of the spec at once, as SpecError,
/// including a default that no run of any profile takes.
Spec load_checked_spec(const std::string& path);

/// The runs of `spec` under `profile`; throws SpecError when one does not resolve.
std::vector<RunConfig> plan_runs(const Spec& spec, const std::string& profile, const DataFingerprint& data = nullptr,
                                 const ModelFingerprint& model = nullptr);

}  // namespace capaboost::harness
