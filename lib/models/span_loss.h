#pragma once
// The span head's outputs and the loss Hugging Face's *ForQuestionAnswering models compute from them,
// shared by RoBERTa's and DeBERTa-v2's question-answering models.

#include <torch/torch.h>

namespace capaboost {

/// Start and end logits of an answer span, per token.
struct SpanLogits {
  torch::Tensor start;  ///< (B, T)
  torch::Tensor end;    ///< (B, T)
};

/// transformers 4.30.2's loss: the mean of the start and end cross-entropies, positions clamped to
/// [0, T] and position T (outside the input) ignored. start_positions, end_positions: (B) int64.
torch::Tensor span_loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                        const torch::Tensor& end_positions);

/// Splits a span head's (B, T, 2) output into start and end logits, (B, T) each.
SpanLogits split_span_logits(const torch::Tensor& logits);

}  // namespace capaboost
