#pragma once
// LayerNorm(dropout(x) + residual) in one pass over the rows, forward and backward: the output of every
// BERT-family sub-block (models/transformer_blocks.h, ResidualOutput). Unfused, the three operators make
// seven passes over the (B, T, C) activations forward (each reads its inputs and writes a tensor of its
// own) and five backward; fused, four each way: each row of C values is read, normalised in cache and
// written once, and the dropout mask is drawn in the same pass.
// The dropout mask is ParallelDropout's (models/dropout_mask.h) for the same seed, element for element,
// so a run draws the same masks fused or not; values differ from the unfused composition only in the
// rounding of the LayerNorm sums.

#include <torch/torch.h>

#include <cstdint>

namespace capaboost {

/// Whether dropout_residual_layer_norm takes these operands: float32 CPU tensors (outside autocast),
/// x and residual of one shape (…, C), weight and bias (C). Other cases run the unfused composition.
bool dropout_residual_layer_norm_applies(const torch::Tensor& x, const torch::Tensor& residual,
                                         const torch::Tensor& weight, const torch::Tensor& bias);

/// layer_norm(parallel_dropout(x, p, seed) + residual, {C}, weight, bias, eps); p = 0 skips the
/// dropout (evaluation). x, residual: (…, C); weight, bias: (C). Differentiable in all four.
torch::Tensor dropout_residual_layer_norm(const torch::Tensor& x, const torch::Tensor& residual, double p,
                                          uint64_t seed, const torch::Tensor& weight, const torch::Tensor& bias,
                                          double eps);

}  // namespace capaboost
