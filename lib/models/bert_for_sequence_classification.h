#pragma once
// BERT's sequence classifier as transformers' BertForSequenceClassification: the encoder with its pooler
// ("bert": dense → tanh on [CLS]), dropout, and one linear layer ("classifier") to the labels. RoBERTa's
// classifier differs only in its head (models/roberta.h).
//
//   auto model = BertForSequenceClassification(bert_options().num_labels(3));
//   auto out = model->forward(input_ids, attention_mask, token_type_ids);   // out.logits: (B, 3)

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/bert_model.h"
#include "models/parallel_dropout.h"
#include "models/task_model.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// As a task model it reads "input_ids", and "attention_mask" and "token_type_ids" when the batch has them.
class BertForSequenceClassificationImpl : public TaskModelImpl {
 public:
  explicit BertForSequenceClassificationImpl(const BertOptions& options);

  /// Inputs as BertModel::forward. When neither hidden states nor attentions are asked for, the last
  /// layer runs for [CLS] only (BertModel::first_token_state): nothing else reaches the pooler.
  SequenceClassifierOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                   const torch::Tensor& token_type_ids = {}, const BertForwardOptions& outputs = {});

  /// transformers' loss for these logits (models/classification_loss.h).
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  /// The pooler and the classifier: BERT's pooler is its classification head's first layer (RoBERTa's head
  /// has the same dense → tanh inside "classifier", DeBERTa's counts its "pooler."), so it trains under
  /// every method, as theirs do. Frozen, a checkpoint's pooler can starve the classifier: all-MiniLM-L6-v2's
  /// was never trained for [CLS] (sentence-transformers pools means), and with it frozen LoRA r=8 reaches
  /// STS-B Pearson 0.06 after an epoch on 3,000 pairs, in transformers + PEFT as here; trained, 0.72.
  std::vector<std::string> head_prefixes() const override { return {"bert.pooler.", "classifier."}; }

  BertOptions options;
  BertModel bert{nullptr};  // with its pooler
  ParallelDropout dropout{nullptr};
  TunableLinear classifier{nullptr};
};
TORCH_MODULE(BertForSequenceClassification);

}  // namespace capaboost
