#pragma once
// One cast for an input that several products read.
//
// Under autocast (a bf16 run on the CPU or a GPU, runtime/precision.h) every product casts its fp32
// operands itself, and autograd casts each of their gradients back. Attention's query, key and value
// projections (and the tuners at those sites) all read the same hidden states, so that input is cast to
// bf16 once per product and its gradient cast back once per product: five (B, T, C) casts forward and
// five backward per layer under LoRA on query and value. Casting it once before the products does the
// work once; the gradients of the products then add up in bf16 before the one cast back to fp32, the
// rounding a fused query-key-value projection (one product, one gradient) would give.

#include <torch/torch.h>

#include "runtime/autocast_compat.h"

namespace capaboost::runtime {

/// x in the dtype the current autocast scope of x's device runs products in, when that autocast is on and
/// x is fp32; otherwise x itself (fp32 runs are untouched).
inline torch::Tensor autocast_input(const torch::Tensor& x) {
  const auto device = x.device().type();
  if (!autocast_enabled(device) || x.scalar_type() != torch::kFloat) return x;
  return x.to(autocast_dtype(device));
}

}  // namespace capaboost::runtime
