#include "models/llama_for_sequence_classification.h"

#include "models/classification_loss.h"
#include "models/transformer_blocks.h"

namespace capaboost {

torch::Tensor last_real_token(const torch::Tensor& attention_mask, int64_t batch, int64_t length) {
  if (!attention_mask.defined()) return torch::full({batch}, length - 1, torch::kLong);
  TORCH_CHECK(attention_mask.dim() == 2 && attention_mask.size(0) == batch && attention_mask.size(1) == length,
              "last_real_token: attention_mask must be (B, T) = (", batch, ", ", length, "), got ",
              attention_mask.sizes());
  // The largest index whose mask is 1: positions · mask, maximised per row (a row of padding only gives 0).
  const auto positions = torch::arange(length, attention_mask.options().dtype(torch::kLong));
  return (attention_mask.ne(0).to(torch::kLong) * positions).amax(1);
}

LlamaForSequenceClassificationImpl::LlamaForSequenceClassificationImpl(const LlamaOptions& options)
    : options(options) {
  model = register_module("model", LlamaModel(options));
  score = register_module("score", TunableLinear(TunableLinearOptions(options.hidden_size(), options.num_labels())
                                                     .bias(false)));
  init_linear_weights(*score, options.initializer_range());
}

torch::Tensor LlamaForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                          const torch::Tensor& attention_mask,
                                                          const torch::Tensor& position_ids) {
  const auto hidden = model->forward(input_ids, attention_mask, position_ids).last_hidden_state;  // (B, T, C)
  const int64_t batch = hidden.size(0);
  const auto last = last_real_token(attention_mask, batch, hidden.size(1)).to(hidden.device());
  const auto pooled = hidden.index({torch::arange(batch, last.options()), last});  // (B, C)
  return score(pooled);                                                             // (B, num_labels)
}

torch::Tensor LlamaForSequenceClassificationImpl::loss(const torch::Tensor& logits, const torch::Tensor& labels) const {
  return sequence_classification_loss(logits, labels, options.problem_type());
}

torch::Tensor LlamaForSequenceClassificationImpl::forward_batch(const Batch& batch) {
  return forward(batch.input("input_ids"), batch.optional_input("attention_mask"));
}

torch::Tensor LlamaForSequenceClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  return loss(outputs, batch.labels);
}

}  // namespace capaboost
