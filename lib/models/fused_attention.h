#pragma once
// Scaled dot-product attention, dropout(softmax(scale · q kᵀ + mask)) v, one (sequence, head) at a time
// with its scores in cache, forward and backward: the self-attention of the BERT-family encoders
// (models/bert_layers.h) on float32 CPU tensors.
//
// Unfused, a layer writes its (B, H, Tq, T) scores, probabilities and dropped probabilities to memory
// and reads them back (three batched products and masked_softmax_dropout), backward five more passes,
// and every product goes through one oneDNN batch whose per-head matrices (64 × 64 × 32 at MiniLM's
// shape) run far below the GEMM rate. Here each head's products are plain sgemm calls on one thread
// (heads spread over torch's threads), the scores never leave a thread's buffer, and the context and
// the gradients of q, k and v are written straight into (B, T, H, d) memory, so the heads' permutes
// back to (B, T, C) cost no copy. The probabilities are kept for backward, as before.
//
// The dropout mask is ParallelDropout's (models/dropout_mask.h) over the (B, H, Tq, T) probabilities,
// element for element as masked_softmax_dropout draws it: a run draws the same masks fused or not, and
// values differ from the unfused composition only in rounding.

#include <torch/torch.h>

#include <cstdint>

namespace capaboost {

/// Whether fused_attention takes these operands: float32 CPU q (B, H, Tq, d), k and v (B, H, T, d) whose
/// last dimension has unit stride (heads split off a projection by view + permute are), outside
/// autocast, and a mask that is undefined or a float32 (B, 1, 1, T) additive mask without gradient.
bool fused_attention_applies(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& mask);

/// context = parallel_dropout(softmax(scale · q kᵀ + mask, -1), p, seed) @ v; an undefined mask adds
/// nothing, p = 0 skips the dropout (evaluation). q: (B, H, Tq, d); k, v: (B, H, T, d); mask:
/// (B, 1, 1, T) or undefined → context (B, H, Tq, d), stored as a contiguous (B, Tq, H, d) tensor (so
/// permute(0, 2, 1, 3) then a reshape to (B, Tq, H·d) is a view). Differentiable in q, k and v.
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& mask, double scale, double p, uint64_t seed);

}  // namespace capaboost
