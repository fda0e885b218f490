#pragma once
// dropout(softmax(scores + mask)) in one pass over each row of attention scores, forward and backward:
// the attention probabilities of the BERT-family encoders (models/bert_layers.h) and ViT (models/vit.h).
// Unfused, the three operators read and write the (B, H, Tq, T) scores three times forward (add, softmax,
// dropout) and twice backward (the dropout's mask, softmax's backward); fused, each row is read once,
// normalised in cache and written twice (the probabilities autograd keeps, and the dropped ones), and
// read twice backward. The mask is ParallelDropout's (models/dropout_mask.h) for the same seed, element
// for element, so a run draws the same masks fused or not; values differ from the unfused composition
// only in rounding (its own exponential, accurate to a few ulp).

#include <torch/torch.h>

#include <cstdint>

#include "models/parallel_dropout.h"

namespace capaboost {

/// Whether masked_softmax_dropout takes these operands: float32 CPU scores (B, H, Tq, T) outside
/// autocast, and a mask that is undefined or a float32 (B, 1, 1, T) additive mask needing no gradient.
/// Other cases run the unfused composition.
bool masked_softmax_dropout_applies(const torch::Tensor& scores, const torch::Tensor& mask);

/// Whether `mask` is an attention mask the fused attention kernels take (here and models/fused_attention.h):
/// undefined, or a float32 CPU additive key-padding mask (batch, 1, 1, keys) that needs no gradient.
bool fused_key_mask_fits(const torch::Tensor& mask, int64_t batch, int64_t keys);

/// parallel_dropout(softmax(scores + mask, -1), p, seed); an undefined mask adds nothing, p = 0 skips the
/// dropout (evaluation). scores: (B, H, Tq, T); mask: (B, 1, 1, T) or undefined → (B, H, Tq, T).
/// Differentiable in scores.
torch::Tensor masked_softmax_dropout(const torch::Tensor& scores, const torch::Tensor& mask, double p, uint64_t seed);

/// The dropout a self-attention layer's probabilities take in this call: the module's p while it trains
/// (0 in evaluation or at p = 0) and, when it drops, a seed drawn as ParallelDropout draws it (once, from
/// torch's default generator), so the run's later masks stay where they were, fused or not.
struct AttentionDropout {
  double p = 0.0;
  uint64_t seed = 0;
};
AttentionDropout draw_attention_dropout(ParallelDropoutImpl& dropout);

/// A self-attention layer's probabilities, dropout(softmax(scores + mask)) with the layer's own dropout
/// module: fused where masked_softmax_dropout applies, the three operators otherwise, with the same seed
/// draw either way (none in evaluation or at p = 0). scores: (B, H, Tq, T); mask: broadcastable to it, or
/// undefined → (B, H, Tq, T).
torch::Tensor attention_probabilities(const torch::Tensor& scores, const torch::Tensor& mask, ParallelDropoutImpl& dropout);

}  // namespace capaboost
