#pragma once
// Where and with what a run was computed: recorded in every run record.

#include <nlohmann/json.hpp>

namespace capaboost::harness {

/// git commit and dirty flag of the source tree, compiler, build type, LibTorch version, host,
/// BLAS library and kernel, torch threads. Collected once per process (git is asked once).
const nlohmann::json& provenance();

}  // namespace capaboost::harness
