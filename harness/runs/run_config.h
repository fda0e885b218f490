#pragma once
// Expanding a spec into runs, and the key that identifies each run.

#include "spec/spec.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// Bumped by hand whenever a change to the library or the measures changes results; part of every
/// run key, so cached runs of older code are not mistaken for current ones. (The git commit is
/// recorded in each run's provenance, but is not part of the key: a docs-only commit must not
/// invalidate hours of runs.)
inline constexpr const char* kCodeVersion = "capaboost-bench/1";

/// One run: a fully resolved parameter set under one measure.
struct RunConfig {
  std::string label;    ///< the spec row it came from (not part of the key)
  std::string measure;  ///< what the run computes
  nlohmann::json parameters = nlohmann::json::object();  ///< resolved, including seed (and lr when swept)
  std::string data_fingerprint;  ///< "none" for runs without a dataset
  /// Identity of a backbone the suite builds itself (its recipe), empty for every other model: a
  /// spec that says `model: mini` must not reuse runs of an encoder built by an older recipe.
  std::string model_fingerprint;
  std::string key;  ///< hex SHA-256 of the canonical (measure, parameters, code, data[, model])

  /// Short, human-readable: "LoRA rank=8 seed=42".
  std::string display_name(const std::vector<std::string>& axis_names) const;
};

/// Returns the dataset fingerprint of a run's parameters ("none" when it has no dataset).
using DataFingerprint = std::function<std::string(const nlohmann::json& parameters)>;

/// Returns the model fingerprint of a run's parameters (empty when the model needs none).
using ModelFingerprint = std::function<std::string(const nlohmann::json& parameters)>;

/// The canonical text hashed into a run key: sorted-key JSON of measure, parameters, code version and
/// data fingerprint, plus the model fingerprint when there is one (so keys of all other runs stay as
/// they were). Independent of key order in the YAML.
std::string canonical_run_text(const RunConfig& run);

/// Every run of `spec` under `profile`: rows × grid (cartesian) × zip × lr_grid × seeds, with the
/// profile overlay applied last. Keys are filled in. Runs with identical keys are listed once.
std::vector<RunConfig> expand_spec(const Spec& spec, const std::string& profile, const DataFingerprint& fingerprint,
                                   const ModelFingerprint& model_fingerprint = nullptr);

/// The axis names of a spec under a profile (for display names): grid, zip, lr and seed.
std::vector<std::string> axis_names(const Spec& spec);

}  // namespace capaboost::harness
