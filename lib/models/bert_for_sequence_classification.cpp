#include "models/bert_for_sequence_classification.h"

#include "models/classification_loss.h"

namespace capaboost {

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const BertOptions& options_)
    : options(options_) {
  TORCH_CHECK(options.family() == BertFamily::kBert,
              "BertForSequenceClassification: the options describe a RoBERTa encoder; use RobertaForSequenceClassification");
  bert = register_module("bert", BertModel(options, /*add_pooling_layer=*/true));
  dropout = register_module("dropout", ParallelDropout(options.effective_classifier_dropout()));
  classifier = register_module("classifier", TunableLinear(options.hidden_size(), options.num_labels()));
  init_linear_weights(*classifier, options.initializer_range());
}

SequenceClassifierOutput BertForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                                    const torch::Tensor& attention_mask,
                                                                    const torch::Tensor& token_type_ids,
                                                                    const BertForwardOptions& outputs) {
  SequenceClassifierOutput out;
  torch::Tensor pooled;  // (B, C)
  if (!outputs.output_hidden_states() && !outputs.output_attentions()) {
    pooled = bert->pooler->forward(bert->first_token_state(input_ids, attention_mask, token_type_ids));
  } else {
    auto base = bert->forward(input_ids, attention_mask, token_type_ids, outputs);
    pooled = base.pooler_output;
    out.hidden_states = std::move(base.hidden_states);
    out.attentions = std::move(base.attentions);
  }
  out.logits = classifier->forward(dropout->forward(pooled));  // (B, num_labels)
  return out;
}

torch::Tensor BertForSequenceClassificationImpl::loss(const torch::Tensor& logits, const torch::Tensor& labels) const {
  return sequence_classification_loss(logits, labels, options.problem_type());
}

torch::Tensor BertForSequenceClassificationImpl::forward_batch(const Batch& batch) {
  return forward(batch.input("input_ids"), batch.optional_input("attention_mask"),
                 batch.optional_input("token_type_ids"))
      .logits;  // (B, num_labels)
}

torch::Tensor BertForSequenceClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  TORCH_CHECK(batch.labels.defined(), "BertForSequenceClassification: the batch has no labels to train on");
  return loss(outputs, batch.labels);
}

}  // namespace capaboost
