#pragma once
// Where and with what a run was computed: recorded in every run record.

#include <nlohmann/json.hpp>

namespace capaboost::harness {

/// The build compiled in (execute/build_identity.h: commit, uncommitted changes and their digest,
/// compiler, build type, LibTorch), this process's numerics fingerprint (execute/numerics_fingerprint.h),
/// host, BLAS library and kernel, torch threads. `git_sha` and `git_dirty` repeat the build's commit and
/// dirty flag, as records before fingerprints named them (then read from the checkout at run time).
/// Collected once per process.
const nlohmann::json& provenance();

}  // namespace capaboost::harness
