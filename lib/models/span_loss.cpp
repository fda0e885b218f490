#include "models/span_loss.h"

namespace capaboost {

torch::Tensor span_loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                        const torch::Tensor& end_positions) {
  TORCH_CHECK(logits.start.dim() == 2 && logits.start.sizes() == logits.end.sizes(),
              "span_loss: start and end logits must both be (B, T); got ", logits.start.sizes(), " and ",
              logits.end.sizes());
  // Positions beyond the input (answers a window does not hold, when a caller did not point them at
  // the CLS token) are clamped to T and ignored, as transformers does.
  const int64_t ignored = logits.start.size(1);
  const auto options = torch::nn::functional::CrossEntropyFuncOptions().ignore_index(ignored);
  const auto start =
      torch::nn::functional::cross_entropy(logits.start, start_positions.reshape({-1}).clamp(0, ignored), options);
  const auto end = torch::nn::functional::cross_entropy(logits.end, end_positions.reshape({-1}).clamp(0, ignored), options);
  return (start + end) / 2;
}

SpanLogits split_span_logits(const torch::Tensor& logits) {
  TORCH_CHECK(logits.dim() == 3 && logits.size(-1) == 2, "a span head's output is (B, T, 2); got ", logits.sizes());
  return {logits.select(-1, 0), logits.select(-1, 1)};  // (B, T) views each
}

}  // namespace capaboost
