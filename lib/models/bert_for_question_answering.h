#pragma once
// The span head of the BERT family, as transformers' BertForQuestionAnswering and
// RobertaForQuestionAnswering (the same module in both): the encoder without pooler ("bert" or
// "roberta", by the options' family) and "qa_outputs" mapping every token to its start and end logits.
//
//   BertForQuestionAnswering qa(bert_options().num_hidden_layers(2));
//   SpanLogits out = qa->forward(input_ids, attention_mask, token_type_ids);   // out.start: (B, T)

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/bert_model.h"
#include "models/span_loss.h"
#include "models/task_model.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// As a task model its outputs are (B, T, 2) and its labels the batch inputs "start_positions" and
/// "end_positions" (B) int64; it reads "input_ids", and "attention_mask" and "token_type_ids" when the
/// batch has them.
class BertForQuestionAnsweringImpl : public TaskModelImpl {
 public:
  explicit BertForQuestionAnsweringImpl(const BertOptions& options);

  /// Inputs as BertModel::forward.
  SpanLogits forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                     const torch::Tensor& token_type_ids = {});
  /// transformers' loss (models/span_loss.h).
  torch::Tensor loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                     const torch::Tensor& end_positions) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"qa_outputs."}; }

  BertOptions options;
  BertModel base{nullptr};  // "bert" or "roberta"
  TunableLinear qa_outputs{nullptr};
};
TORCH_MODULE(BertForQuestionAnswering);

/// RoBERTa's span head is the same module with a RoBERTa-family encoder.
using RobertaForQuestionAnsweringImpl = BertForQuestionAnsweringImpl;
using RobertaForQuestionAnswering = BertForQuestionAnswering;

}  // namespace capaboost
