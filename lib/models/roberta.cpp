#include "models/roberta.h"

#include "models/classification_loss.h"

namespace capaboost {

RobertaClassificationHeadImpl::RobertaClassificationHeadImpl(const BertOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  dropout = register_module("dropout", ParallelDropout(options.effective_classifier_dropout()));
  out_proj = register_module("out_proj", TunableLinear(options.hidden_size(), options.num_labels()));
}

torch::Tensor RobertaClassificationHeadImpl::forward(const torch::Tensor& first_token) {
  auto x = torch::tanh(dense->forward(dropout->forward(first_token)));  // (B, C)
  return out_proj->forward(dropout->forward(x));                        // (B, num_labels)
}

RobertaForSequenceClassificationImpl::RobertaForSequenceClassificationImpl(const BertOptions& options_)
    : options(options_) {
  TORCH_CHECK(options.family() == BertFamily::kRoberta,
              "RobertaForSequenceClassification: the options describe a BERT encoder; use BertForSequenceClassification");
  roberta = register_module("roberta", BertModel(options, /*add_pooling_layer=*/false));
  classifier = register_module("classifier", RobertaClassificationHead(options));
  init_transformer_weights(*classifier, options.initializer_range());
}

SequenceClassifierOutput RobertaForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                                       const torch::Tensor& attention_mask,
                                                                       const torch::Tensor& token_type_ids,
                                                                       const BertForwardOptions& outputs) {
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
  return forward(batch.input("input_ids"), batch.optional_input("attention_mask"),
                 batch.optional_input("token_type_ids"))
      .logits;  // (B, num_labels)
}

torch::Tensor RobertaForSequenceClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  TORCH_CHECK(batch.labels.defined(), "RobertaForSequenceClassification: the batch has no labels to train on");
  return loss(outputs, batch.labels);
}

}  // namespace capaboost
