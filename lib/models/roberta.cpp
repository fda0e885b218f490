#include "models/roberta.h"

#include "models/classification_loss.h"

namespace capaboost {
namespace {

// Embeddings and the additive mask, shared by the full and the first-token passes.
std::pair<torch::Tensor, torch::Tensor> embed(RobertaModelImpl& model, const torch::Tensor& input_ids,
                                              const torch::Tensor& attention_mask,
                                              const torch::Tensor& token_type_ids) {
  auto hidden = model.embeddings->forward(input_ids, token_type_ids);  // (B, T, C)
  torch::Tensor mask;
  if (attention_mask.defined()) {
    TORCH_CHECK(attention_mask.sizes() == input_ids.sizes(), "RoBERTa: attention_mask ",
                attention_mask.sizes(), " must have the shape of input_ids ", input_ids.sizes());
    mask = additive_attention_mask(attention_mask, hidden.scalar_type());  // (B, 1, 1, T)
  }
  return {hidden, mask};
}

}  // namespace

RobertaPoolerImpl::RobertaPoolerImpl(const RobertaOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
}

torch::Tensor RobertaPoolerImpl::forward(const torch::Tensor& hidden) {
  return torch::tanh(dense->forward(hidden.select(1, 0)));
}

RobertaModelImpl::RobertaModelImpl(const RobertaOptions& options_, bool add_pooling_layer)
    : options(options_) {
  options.validate();
  embeddings = register_module("embeddings", RobertaEmbeddings(options));
  encoder = register_module("encoder", RobertaEncoder(options));
  if (add_pooling_layer) pooler = register_module("pooler", RobertaPooler(options));
  init_transformer_weights(*this, options.initializer_range());
}

RobertaModelOutput RobertaModelImpl::forward(const torch::Tensor& input_ids,
                                             const torch::Tensor& attention_mask,
                                             const torch::Tensor& token_type_ids,
                                             const RobertaForwardOptions& outputs) {
  auto [hidden, mask] = embed(*this, input_ids, attention_mask, token_type_ids);
  auto encoded = encoder->forward(hidden, mask, outputs.output_hidden_states(), outputs.output_attentions());
  RobertaModelOutput out;
  out.last_hidden_state = encoded.last_hidden_state;
  if (pooler) out.pooler_output = pooler->forward(encoded.last_hidden_state);
  out.hidden_states = std::move(encoded.hidden_states);
  out.attentions = std::move(encoded.attentions);
  return out;
}

torch::Tensor RobertaModelImpl::first_token_state(const torch::Tensor& input_ids,
                                                  const torch::Tensor& attention_mask,
                                                  const torch::Tensor& token_type_ids) {
  auto [hidden, mask] = embed(*this, input_ids, attention_mask, token_type_ids);
  return encoder->forward(hidden, mask, false, false, /*first_token_only=*/true)
      .last_hidden_state.select(1, 0);
}

RobertaClassificationHeadImpl::RobertaClassificationHeadImpl(const RobertaOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  dropout = register_module("dropout", ParallelDropout(options.effective_classifier_dropout()));
  out_proj = register_module("out_proj", TunableLinear(options.hidden_size(), options.num_labels()));
}

torch::Tensor RobertaClassificationHeadImpl::forward(const torch::Tensor& first_token) {
  auto x = torch::tanh(dense->forward(dropout->forward(first_token)));  // (B, C)
  return out_proj->forward(dropout->forward(x));                        // (B, num_labels)
}

RobertaForSequenceClassificationImpl::RobertaForSequenceClassificationImpl(const RobertaOptions& options_)
    : options(options_) {
  roberta = register_module("roberta", RobertaModel(options, /*add_pooling_layer=*/false));
  classifier = register_module("classifier", RobertaClassificationHead(options));
  init_transformer_weights(*classifier, options.initializer_range());
}

SequenceClassifierOutput RobertaForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                                       const torch::Tensor& attention_mask,
                                                                       const torch::Tensor& token_type_ids,
                                                                       const RobertaForwardOptions& outputs) {
  SequenceClassifierOutput out;
  if (!outputs.output_hidden_states() && !outputs.output_attentions()) {
    out.logits = classifier->forward(roberta->first_token_state(input_ids, attention_mask, token_type_ids));
    return out;
  }
  auto base = roberta->forward(input_ids, attention_mask, token_type_ids, outputs);
  out.logits = classifier->forward(base.last_hidden_state.select(1, 0));
  out.hidden_states = std::move(base.hidden_states);
  out.attentions = std::move(base.attentions);
  return out;
}

torch::Tensor RobertaForSequenceClassificationImpl::loss(const torch::Tensor& logits,
                                                         const torch::Tensor& labels) const {
  return sequence_classification_loss(logits, labels, options.problem_type());
}

torch::Tensor RobertaForSequenceClassificationImpl::forward_batch(const Batch& batch) {
  return forward(batch.input("input_ids"), batch.optional_input("attention_mask")).logits;  // (B, num_labels)
}

torch::Tensor RobertaForSequenceClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  TORCH_CHECK(batch.labels.defined(), "RobertaForSequenceClassification: the batch has no labels to train on");
  return loss(outputs, batch.labels);
}

RobertaForQuestionAnsweringImpl::RobertaForQuestionAnsweringImpl(const RobertaOptions& options_) : options(options_) {
  roberta = register_module("roberta", RobertaModel(options, /*add_pooling_layer=*/false));
  qa_outputs = register_module("qa_outputs", TunableLinear(options.hidden_size(), 2));
  init_linear_weights(*qa_outputs, options.initializer_range());
}

SpanLogits RobertaForQuestionAnsweringImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                    const torch::Tensor& token_type_ids) {
  // hidden: (B, T, C) → logits (B, T, 2)
  const auto hidden = roberta->forward(input_ids, attention_mask, token_type_ids).last_hidden_state;
  return split_span_logits(qa_outputs->forward(hidden));
}

torch::Tensor RobertaForQuestionAnsweringImpl::loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                                                    const torch::Tensor& end_positions) const {
  return span_loss(logits, start_positions, end_positions);
}

torch::Tensor RobertaForQuestionAnsweringImpl::forward_batch(const Batch& batch) {
  // The head's (B, T, 2) output as it comes: the trainer and scorer take it whole, so no split and restack.
  return qa_outputs->forward(roberta->forward(batch.input("input_ids"), batch.optional_input("attention_mask")).last_hidden_state);
}

torch::Tensor RobertaForQuestionAnsweringImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  return loss(split_span_logits(outputs), batch.input("start_positions"), batch.input("end_positions"));
}

}  // namespace capaboost
