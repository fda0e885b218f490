#pragma once
// Softmax over one row of attention scores, and its backward: the row kernels that the fused attention
// kernels share (models/masked_softmax_dropout.h, models/fused_attention.h). Vectorised, with an AVX-512
// clone the loader picks where the CPU has it; one thread per call (the callers thread over rows).

#include <cstdint>

namespace capaboost {

/// y = softmax(x + mask) over one row of L floats (mask null: softmax(x)), the row's maximum subtracted
/// first as torch::softmax does. y may be x. Masked positions (float's lowest) come out exactly 0.
void softmax_row(const float* x, const float* mask, float* y, int64_t L);

/// grad = y · (g − Σ g·y) over one row of L: from g, the gradient of softmax's output y, the gradient of
/// its input. grad may be g.
void softmax_backward_row(const float* y, const float* g, float* grad, int64_t L);

}  // namespace capaboost
