#pragma once
// One cast for an input that several products read.
//
// Under CPU autocast (a bf16 run, runtime/precision.h) every product casts its fp32 operands itself, and
// autograd casts each of their gradients back. Attention's query, key and value projections (and the
// tuners at those sites) all read the same hidden states, so that input is cast to bf16 once per
// product and its gradient cast back once per product: five (B, T, C) casts forward and five backward
// per layer under LoRA on query and value. Casting it once before the products does the work once; the
// gradients of the products then add up in bf16 before the one cast back to fp32, the rounding a fused
// query-key-value projection (one product, one gradient) would give.

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

namespace capaboost::runtime {

/// x in the dtype the current CPU autocast scope runs products in, when autocast is on and x is fp32;
/// otherwise x itself (fp32 runs are untouched).
inline torch::Tensor autocast_input(const torch::Tensor& x) {
  if (!at::autocast::is_cpu_enabled() || x.scalar_type() != torch::kFloat) return x;
  return x.to(at::autocast::get_autocast_cpu_dtype());
}

}  // namespace capaboost::runtime
