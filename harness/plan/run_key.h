#pragma once
// The key that identifies a run: a hash of everything its result depends on.

#include <string>

#include "plan/run_config.h"

namespace capaboost::harness {

/// Bumped by hand whenever a change to the library or the measures changes results, or the canonical
/// form below changes; part of every run key, so cached runs of older code are not mistaken for
/// current ones. (The git commit is recorded in each run's provenance, but is not part of the key: a
/// docs-only commit must not invalidate hours of runs.) Version 2: configs hold every default.
inline constexpr const char* kCodeVersion = "capaboost-bench/2";

/// The canonical text hashed into a run key: sorted-key JSON of measure, config, code version and data
/// fingerprint, plus the model fingerprint when there is one; the config without `run.unkeyed`.
/// Independent of key order in the YAML.
std::string canonical_run_text(const RunConfig& run);

/// SHA-256 of canonical_run_text(run), hex.
std::string run_key(const RunConfig& run);

}  // namespace capaboost::harness
