#pragma once
// The exact GELU of the BERT-family feed-forward blocks (transformers' "gelu": x·Φ(x), Φ the normal
// distribution function) on float32 CPU tensors, forward and backward by the suite's own vectorised
// kernels. ATen's CPU GELU is bound by its erf, not by memory: measured on the AMD EPYC of
// docs/performance.md at the MiniLM step's shape (1,280 × 1,536), 22 GB/s forward and 14 GB/s backward
// against 150+ GB/s for an add of the same tensors. (The feed-forward bias needs no fusing: the linear
// layer adds it inside its GEMM, addmm's C.)
// Values match transformers' to float rounding: within 4e-7 absolute everywhere, and in relative terms
// far closer than ATen's in the negative tail, where 1 + erf(x/√2) cancels.

#include <torch/torch.h>

namespace capaboost {

/// Whether exact_gelu takes x: a float32 CPU tensor. Others (bf16 under autocast, CUDA) go to torch::gelu.
bool exact_gelu_applies(const torch::Tensor& x);

/// x·Φ(x) elementwise, differentiable in x (once: its backward is a kernel, not a graph). x: any shape.
torch::Tensor exact_gelu(const torch::Tensor& x);

}  // namespace capaboost
