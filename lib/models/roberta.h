#pragma once
// RoBERTa as transformers 4.30.2's RobertaModel, RobertaForSequenceClassification and
// RobertaForQuestionAnswering: same computation
// (post-LayerNorm blocks, learned absolute positions with RoBERTa's padding offset, additive
// finfo.min attention mask, dense → tanh → out_proj head on the first token) and the same parameter
// names, so Hugging Face checkpoints load 1:1 (see models/roberta_pretrained.h).
//
//   auto model = RobertaForSequenceClassification(RobertaOptions().num_labels(3));
//   auto out = model->forward(input_ids, attention_mask);           // out.logits: (B, 3)
//   auto loss = model->loss(out.logits, labels);

#include <torch/torch.h>

#include <vector>

#include "models/parallel_dropout.h"
#include "models/roberta_config.h"
#include "models/roberta_layers.h"
#include "models/span_loss.h"
#include "models/task_model.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// Which intermediate results a forward pass returns (transformers' output_hidden_states /
/// output_attentions).
struct RobertaForwardOptions {
  TORCH_ARG(bool, output_hidden_states) = false;
  TORCH_ARG(bool, output_attentions) = false;
};

/// RobertaModel's outputs.
struct RobertaModelOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C)
  torch::Tensor pooler_output;               ///< (B, C), undefined without a pooler
  std::vector<torch::Tensor> hidden_states;  ///< when asked: L+1 × (B, T, C); [0] is the embeddings output
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T) softmax probabilities
};

/// dense → tanh on the first token.
class RobertaPoolerImpl : public torch::nn::Module {
 public:
  explicit RobertaPoolerImpl(const RobertaOptions& options);
  /// hidden: (B, T, C) → (B, C).
  torch::Tensor forward(const torch::Tensor& hidden);

  TunableLinear dense{nullptr};
};
TORCH_MODULE(RobertaPooler);

/// The bare encoder: embeddings ("embeddings"), layers ("encoder.layer.<i>"), optional pooler ("pooler").
class RobertaModelImpl : public torch::nn::Module {
 public:
  /// transformers adds the pooler by default; RobertaForSequenceClassification builds it without one.
  explicit RobertaModelImpl(const RobertaOptions& options, bool add_pooling_layer = true);

  /// input_ids: (B, T) int64; attention_mask: (B, T) of 1 (attend) / 0 (padding), undefined = all 1;
  /// token_type_ids: (B, T), undefined = all 0.
  RobertaModelOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                             const torch::Tensor& token_type_ids = {},
                             const RobertaForwardOptions& outputs = {});

  /// The encoder output at position 0 only, (B, C): the last layer computes the query, attention output
  /// and feed-forward block of position 0 alone (its keys and values still cover every position). Equal
  /// to forward(...).last_hidden_state[:, 0] up to rounding, with one layer's work mostly skipped.
  torch::Tensor first_token_state(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                  const torch::Tensor& token_type_ids = {});

  RobertaOptions options;
  RobertaEmbeddings embeddings{nullptr};
  RobertaEncoder encoder{nullptr};
  RobertaPooler pooler{nullptr};  // null without a pooling layer
};
TORCH_MODULE(RobertaModel);

/// dropout → dense → tanh → dropout → out_proj, on the first token ("<s>").
class RobertaClassificationHeadImpl : public torch::nn::Module {
 public:
  explicit RobertaClassificationHeadImpl(const RobertaOptions& options);
  /// first_token: (B, C) → logits (B, num_labels).
  torch::Tensor forward(const torch::Tensor& first_token);

  TunableLinear dense{nullptr};
  ParallelDropout dropout{nullptr};
  TunableLinear out_proj{nullptr};
};
TORCH_MODULE(RobertaClassificationHead);

/// RobertaForSequenceClassification's outputs (transformers' SequenceClassifierOutput without loss).
struct SequenceClassifierOutput {
  torch::Tensor logits;                      ///< (B, num_labels)
  std::vector<torch::Tensor> hidden_states;  ///< when asked, as RobertaModelOutput
  std::vector<torch::Tensor> attentions;     ///< when asked, as RobertaModelOutput
};

/// The encoder without pooler ("roberta") and the classification head ("classifier"). As a task model it
/// reads "input_ids" and (optionally) "attention_mask" from a batch.
class RobertaForSequenceClassificationImpl : public TaskModelImpl {
 public:
  explicit RobertaForSequenceClassificationImpl(const RobertaOptions& options);

  /// Inputs as RobertaModel::forward. When neither hidden states nor attentions are asked for, the last
  /// layer runs for the first token only (RobertaModel::first_token_state): nothing else reaches the logits.
  SequenceClassifierOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                   const torch::Tensor& token_type_ids = {},
                                   const RobertaForwardOptions& outputs = {});

  /// transformers' loss for these logits: MSE for one label (regression), cross-entropy for integer
  /// labels, BCE-with-logits otherwise, unless options.problem_type says which.
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"classifier."}; }

  RobertaOptions options;
  RobertaModel roberta{nullptr};
  RobertaClassificationHead classifier{nullptr};
};
TORCH_MODULE(RobertaForSequenceClassification);

/// The encoder without pooler ("roberta") and a span head ("qa_outputs": hidden → start and end logits
/// per token). As a task model its outputs are (B, T, 2) and its labels the batch inputs
/// "start_positions" and "end_positions" (B) int64.
class RobertaForQuestionAnsweringImpl : public TaskModelImpl {
 public:
  explicit RobertaForQuestionAnsweringImpl(const RobertaOptions& options);

  /// Inputs as RobertaModel::forward.
  SpanLogits forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                     const torch::Tensor& token_type_ids = {});
  /// transformers' loss (models/span_loss.h).
  torch::Tensor loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                     const torch::Tensor& end_positions) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"qa_outputs."}; }

  RobertaOptions options;
  RobertaModel roberta{nullptr};
  TunableLinear qa_outputs{nullptr};
};
TORCH_MODULE(RobertaForQuestionAnswering);

}  // namespace capaboost
