#pragma once
// DeBERTa-v2/v3 as transformers 4.30.2's DebertaV2Model, DebertaV2ForSequenceClassification and
// DebertaV2ForQuestionAnswering: same computation (disentangled attention with c2p/p2c terms over
// log-bucketed relative positions, shared or separate position projections, LayerNorm'd relative
// embeddings, optional absolute positions, token types and convolution, the context pooler) and the
// same parameter names, so Hugging Face checkpoints load 1:1 (models/deberta_v2_pretrained.h).
//
//   auto model = DebertaV2ForSequenceClassification(DebertaV2Options().num_labels(3));
//   auto logits = model->forward(input_ids, attention_mask).logits;   // (B, 3)

#include <torch/torch.h>

#include <vector>

#include "models/deberta_v2_config.h"
#include "models/deberta_v2_layers.h"
#include "models/span_loss.h"
#include "models/task_model.h"

namespace capaboost {

struct DebertaV2ForwardOptions {
  TORCH_ARG(bool, output_hidden_states) = false;
  TORCH_ARG(bool, output_attentions) = false;
};

/// DebertaV2Model's outputs (and the heads' hidden states and attentions).
struct DebertaV2ModelOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C)
  std::vector<torch::Tensor> hidden_states;  ///< when asked: L+1 × (B, T, C); [0] is the embeddings output
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T) softmax probabilities
};

/// The bare encoder: embeddings ("embeddings") and encoder ("encoder").
class DebertaV2ModelImpl : public torch::nn::Module {
 public:
  explicit DebertaV2ModelImpl(const DebertaV2Options& options);
  /// input_ids: (B, T) int64; attention_mask: (B, T) of 1/0, undefined = all 1; token_type_ids: (B, T),
  /// undefined = all 0.
  DebertaV2ModelOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                               const torch::Tensor& token_type_ids = {}, const DebertaV2ForwardOptions& outputs = {});

  DebertaV2Options options;
  DebertaV2Embeddings embeddings{nullptr};
  DebertaV2Encoder encoder{nullptr};
};
TORCH_MODULE(DebertaV2Model);

/// dropout → dense → activation on the first token.
class DebertaV2ContextPoolerImpl : public torch::nn::Module {
 public:
  explicit DebertaV2ContextPoolerImpl(const DebertaV2Options& options);
  /// hidden: (B, T, C) → (B, C).
  torch::Tensor forward(const torch::Tensor& hidden);

  Activation activation;
  TunableLinear dense{nullptr};
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(DebertaV2ContextPooler);

struct DebertaV2ClassifierOutput {
  torch::Tensor logits;                      ///< (B, num_labels)
  std::vector<torch::Tensor> hidden_states;  ///< when asked
  std::vector<torch::Tensor> attentions;     ///< when asked
};

/// The encoder ("deberta"), the context pooler ("pooler") and the classifier ("classifier"). As a task
/// model it reads "input_ids", and "attention_mask" and "token_type_ids" when the batch has them.
class DebertaV2ForSequenceClassificationImpl : public TaskModelImpl {
 public:
  explicit DebertaV2ForSequenceClassificationImpl(const DebertaV2Options& options);
  DebertaV2ClassifierOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                    const torch::Tensor& token_type_ids = {},
                                    const DebertaV2ForwardOptions& outputs = {});
  /// transformers' loss: MSE for one label; for integer labels, cross-entropy over the rows whose label
  /// is >= 0 (negative labels are ignored); problem_type, when set, decides as for RoBERTa.
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  /// The pooler is not part of pre-trained DeBERTa checkpoints: it trains with the classifier.
  std::vector<std::string> head_prefixes() const override { return {"pooler.", "classifier."}; }

  DebertaV2Options options;
  DebertaV2Model deberta{nullptr};
  DebertaV2ContextPooler pooler{nullptr};
  ParallelDropout dropout{nullptr};
  TunableLinear classifier{nullptr};
};
TORCH_MODULE(DebertaV2ForSequenceClassification);

/// The encoder ("deberta") and a span head ("qa_outputs": hidden → start and end logits). As a task
/// model its outputs are (B, T, 2) and its labels the batch inputs "start_positions" and "end_positions".
class DebertaV2ForQuestionAnsweringImpl : public TaskModelImpl {
 public:
  explicit DebertaV2ForQuestionAnsweringImpl(const DebertaV2Options& options);
  SpanLogits forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                     const torch::Tensor& token_type_ids = {});
  /// transformers' loss (models/span_loss.h). start_positions, end_positions: (B) int64.
  torch::Tensor loss(const SpanLogits& logits, const torch::Tensor& start_positions,
                     const torch::Tensor& end_positions) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"qa_outputs."}; }

  DebertaV2Options options;
  DebertaV2Model deberta{nullptr};
  TunableLinear qa_outputs{nullptr};
};
TORCH_MODULE(DebertaV2ForQuestionAnswering);

}  // namespace capaboost
