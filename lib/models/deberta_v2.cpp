#include "models/deberta_v2.h"

#include "models/classification_loss.h"

namespace capaboost {

DebertaV2ModelImpl::DebertaV2ModelImpl(const DebertaV2Options& options_) : options(options_) {
  options.validate();
  embeddings = register_module("embeddings", DebertaV2Embeddings(options));
  encoder = register_module("encoder", DebertaV2Encoder(options));
  init_transformer_weights(*this, options.initializer_range());
}

DebertaV2ModelOutput DebertaV2ModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                 const torch::Tensor& token_type_ids,
                                                 const DebertaV2ForwardOptions& outputs) {
  const auto mask = attention_mask.defined() ? attention_mask : torch::ones_like(input_ids);  // (B, T)
  const auto embedded = embeddings->forward(input_ids, token_type_ids, mask);              // (B, T, C)
  auto encoded = encoder->forward(embedded, mask, outputs.output_hidden_states(), outputs.output_attentions());
  return {encoded.last_hidden_state, std::move(encoded.hidden_states), std::move(encoded.attentions)};
}

DebertaV2ContextPoolerImpl::DebertaV2ContextPoolerImpl(const DebertaV2Options& options)
    : activation(options.pooler_hidden_act()) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  dropout = register_module("dropout", ParallelDropout(options.pooler_dropout()));
}

torch::Tensor DebertaV2ContextPoolerImpl::forward(const torch::Tensor& hidden) {
  return activate(activation, dense->forward(dropout->forward(hidden.select(1, 0))));  // (B, C)
}

DebertaV2ForSequenceClassificationImpl::DebertaV2ForSequenceClassificationImpl(const DebertaV2Options& options_)
    : options(options_) {
  deberta = register_module("deberta", DebertaV2Model(options));
  pooler = register_module("pooler", DebertaV2ContextPooler(options));
  classifier = register_module("classifier", TunableLinear(options.hidden_size(), options.num_labels()));
  dropout = register_module("dropout", ParallelDropout(options.cls_dropout().value_or(options.hidden_dropout_prob())));
  // The encoder initialised itself; the head is drawn the same way.
  init_transformer_weights(*pooler, options.initializer_range());
  init_linear_weights(*classifier, options.initializer_range());
}

DebertaV2ClassifierOutput DebertaV2ForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                                          const torch::Tensor& attention_mask,
                                                                          const torch::Tensor& token_type_ids,
                                                                          const DebertaV2ForwardOptions& outputs) {
  auto encoded = deberta->forward(input_ids, attention_mask, token_type_ids, outputs);
  const auto logits = classifier->forward(dropout->forward(pooler->forward(encoded.last_hidden_state)));  // (B, labels)
  return {logits, std::move(encoded.hidden_states), std::move(encoded.attentions)};
}

torch::Tensor DebertaV2ForSequenceClassificationImpl::loss(const torch::Tensor& logits,
                                                           const torch::Tensor& labels) const {
  const bool class_ids = !labels.is_floating_point() && (labels.dim() == 1 || labels.size(-1) == 1);
  if (!options.problem_type() && options.num_labels() > 1 && class_ids) {
    // DeBERTa's own rule: rows labelled < 0 do not count (0 when none is labelled).
    const auto flat = labels.reshape({-1});
    const auto kept = flat.ge(0).nonzero().squeeze(1);
    if (kept.numel() == 0) return torch::zeros({}, logits.options());
    return torch::cross_entropy_loss(logits.index_select(0, kept).to(torch::kFloat), flat.index_select(0, kept));
  }
  return sequence_classification_loss(logits, labels, options.problem_type());
}

torch::Tensor DebertaV2ForSequenceClassificationImpl::forward_batch(const Batch& batch) {
  return forward(batch.input("input_ids"), batch.optional_input("attention_mask"), batch.optional_input("token_type_ids"))
      .logits;
}

torch::Tensor DebertaV2ForSequenceClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  TORCH_CHECK(batch.labels.defined(), "DebertaV2ForSequenceClassification: the batch has no labels to train on");
  return loss(outputs, batch.labels);
}

DebertaV2ForQuestionAnsweringImpl::DebertaV2ForQuestionAnsweringImpl(const DebertaV2Options& options_)
    : options(options_) {
  deberta = register_module("deberta", DebertaV2Model(options));
  qa_outputs = register_module("qa_outputs", TunableLinear(options.hidden_size(), 2));
  init_linear_weights(*qa_outputs, options.initializer_range());
}

SpanLogits DebertaV2ForQuestionAnsweringImpl::forward(const torch::Tensor& input_ids,
                                                      const torch::Tensor& attention_mask,
                                                      const torch::Tensor& token_type_ids) {
  const auto logits = qa_outputs->forward(deberta->forward(input_ids, attention_mask, token_type_ids).last_hidden_state);
  return split_span_logits(logits);
}

torch::Tensor DebertaV2ForQuestionAnsweringImpl::loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                                                      const torch::Tensor& end_positions) const {
  return span_loss(logits, start_positions, end_positions);
}

torch::Tensor DebertaV2ForQuestionAnsweringImpl::forward_batch(const Batch& batch) {
  // The head's (B, T, 2) output as it comes: the trainer and scorer take it whole, so no split and restack.
  const auto hidden = deberta->forward(batch.input("input_ids"), batch.optional_input("attention_mask"),
                                       batch.optional_input("token_type_ids"))
                          .last_hidden_state;
  return qa_outputs->forward(hidden);
}

torch::Tensor DebertaV2ForQuestionAnsweringImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  return loss(split_span_logits(outputs), batch.input("start_positions"), batch.input("end_positions"));
}

}  // namespace capaboost
