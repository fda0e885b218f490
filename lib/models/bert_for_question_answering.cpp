#include "models/bert_for_question_answering.h"

namespace capaboost {

BertForQuestionAnsweringImpl::BertForQuestionAnsweringImpl(const BertOptions& options_) : options(options_) {
  base = register_module(options.base_model_prefix(), BertModel(options, /*add_pooling_layer=*/false));
  qa_outputs = register_module("qa_outputs", TunableLinear(options.hidden_size(), 2));
  init_linear_weights(*qa_outputs, options.initializer_range());
}

SpanLogits BertForQuestionAnsweringImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                 const torch::Tensor& token_type_ids) {
  // hidden: (B, T, C) → logits (B, T, 2)
  const auto hidden = base->forward(input_ids, attention_mask, token_type_ids).last_hidden_state;
  return split_span_logits(qa_outputs->forward(hidden));
}

torch::Tensor BertForQuestionAnsweringImpl::loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                                                 const torch::Tensor& end_positions) const {
  return span_loss(logits, start_positions, end_positions);
}

torch::Tensor BertForQuestionAnsweringImpl::forward_batch(const Batch& batch) {
  // The head's (B, T, 2) output as it comes: the trainer and scorer take it whole, so no split and restack.
  const auto hidden = base->forward(batch.input("input_ids"), batch.optional_input("attention_mask"),
                                    batch.optional_input("token_type_ids"))
                          .last_hidden_state;
  return qa_outputs->forward(hidden);
}

torch::Tensor BertForQuestionAnsweringImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  return loss(split_span_logits(outputs), batch.input("start_positions"), batch.input("end_positions"));
}

}  // namespace capaboost
