#pragma once
// The numerics fingerprint: which arithmetic this build, on this CPU, does. Two processes whose
// fingerprints are equal compute the suite's kernels bit for bit alike, so their runs can be paired as
// runs of one build; different fingerprints mean the rounding of some kernel differs (another commit's
// kernel, another compiler, the AVX-512 clone against the generic one, another BLAS kernel), and a
// paired difference across them mixes a build effect into the method effect.
//
// Each probe pushes a fixed, tiny, seeded input through one kernel family a run can use, forward and
// backward, and digests the bits of everything it returns; the fingerprint is the digest of the
// probes' digests. Source text does not enter it: a commit that changes only comments, docs or report
// code keeps the fingerprint (the build identity, execute/build_identity.h, still names the commit).
//
// The thread count is part of the arithmetic: OpenBLAS splits the GEMM probe's product (64 × 384 × 384,
// a MiniLM projection) over its threads and sums the parts in another order, so one process at 1 thread
// and one at 2 have different fingerprints (measured on the AMD EPYC of docs/performance.md: 61eba545…
// and 27a660b4…, only the gemm probe differing), as their runs have different bits. A sweep's workers
// (cores/jobs threads each) and a lone `capaboost run` do not pair unless their thread counts agree.
// What it cannot see: arithmetic that differs only at sizes the probes do not reach (a kernel with a
// size-dependent path). Records keep the thread count beside the fingerprint.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace capaboost::harness {

/// One kernel family under test: `compute` returns the tensors whose bits are digested (outputs,
/// gradients, updated weights), from inputs it draws itself after a fixed torch::manual_seed.
struct NumericsProbe {
  std::string name;
  std::function<std::vector<torch::Tensor>()> compute;
};

/// The probes of every kernel a run can use: GEMM through the loaded BLAS, the batched attention
/// products, fused attention, masked softmax + dropout, exact GELU, dropout + residual + LayerNorm, the
/// dropout stream, masked CapaBoost-LoRA products, an AdamW step, torch's random streams (weights,
/// masks, data order), and a bf16 product where the CPU runs bf16 natively.
std::vector<NumericsProbe> default_numerics_probes();

struct NumericsFingerprint {
  std::string digest;                         ///< SHA-256 (hex) over the probes' names and digests, in order
  std::map<std::string, std::string> probes;  ///< probe name → SHA-256 of its tensors' bytes

  /// {"fingerprint": digest, "probes": {name: digest}}: what records carry (store/record_build.h reads it).
  nlohmann::json to_json() const;
};

/// Runs `probes` and digests them. torch's default CPU generator is restored afterwards, so a run that
/// starts after it draws what it would have drawn.
NumericsFingerprint numerics_fingerprint(const std::vector<NumericsProbe>& probes);

/// This process's fingerprint over default_numerics_probes(), computed on first use and kept.
const NumericsFingerprint& this_process_numerics();

/// The fingerprint a process running with `threads` torch threads has (a sweep's parent asks it for its
/// workers): computed with torch's threads set to `threads`, then set back.
NumericsFingerprint numerics_with_threads(int threads);

}  // namespace capaboost::harness
