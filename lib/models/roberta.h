#pragma once
// RoBERTa's task models as transformers' RobertaForSequenceClassification and
// RobertaForQuestionAnswering: the BERT-family encoder with RoBERTa's embeddings (models/bert_model.h,
// family kRoberta) under "roberta", and RoBERTa's dense → tanh → out_proj classification head on the
// first token; the span head is the family's shared one (models/bert_for_question_answering.h). Same
// parameter names as transformers, so Hugging Face checkpoints load 1:1 (models/roberta_pretrained.h).
//
//   auto model = RobertaForSequenceClassification(roberta_options().num_labels(3));
//   auto out = model->forward(input_ids, attention_mask);           // out.logits: (B, 3)
//   auto loss = model->loss(out.logits, labels);

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/bert_for_question_answering.h"
#include "models/bert_model.h"
#include "models/parallel_dropout.h"
#include "models/task_model.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// dropout → dense → tanh → dropout → out_proj, on the first token ("<s>").
class RobertaClassificationHeadImpl : public torch::nn::Module {
 public:
  explicit RobertaClassificationHeadImpl(const BertOptions& options);
  /// first_token: (B, C) → logits (B, num_labels).
  torch::Tensor forward(const torch::Tensor& first_token);

  TunableLinear dense{nullptr};
  ParallelDropout dropout{nullptr};
  TunableLinear out_proj{nullptr};
};
TORCH_MODULE(RobertaClassificationHead);

/// The encoder without pooler ("roberta") and the classification head ("classifier"). As a task model it
/// reads "input_ids", and "attention_mask" and "token_type_ids" when the batch has them.
class RobertaForSequenceClassificationImpl : public TaskModelImpl {
 public:
  /// `options` must describe the RoBERTa family (roberta_options(), load_roberta_config).
  explicit RobertaForSequenceClassificationImpl(const BertOptions& options);

  /// Inputs as BertModel::forward. When neither hidden states nor attentions are asked for, the last
  /// layer runs for the first token only (BertModel::first_token_state): nothing else reaches the logits.
  SequenceClassifierOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                   const torch::Tensor& token_type_ids = {},
                                   const BertForwardOptions& outputs = {});

  /// transformers' loss for these logits: MSE for one label (regression), cross-entropy for integer
  /// labels, BCE-with-logits otherwise, unless options.problem_type says which.
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"classifier."}; }

  BertOptions options;
  BertModel roberta{nullptr};
  RobertaClassificationHead classifier{nullptr};
};
TORCH_MODULE(RobertaForSequenceClassification);

}  // namespace capaboost
