#pragma once
// The BERT-family encoder (BERT and RoBERTa) as transformers' BertModel / RobertaModel: embeddings,
// post-LayerNorm blocks, additive finfo.min attention mask and an optional dense → tanh pooler on the
// first token, with the same parameter names, so Hugging Face checkpoints of either family load 1:1
// (models/bert_pretrained.h, models/roberta_pretrained.h). The task models of both families hold one.
//
//   BertModel encoder(bert_options().hidden_size(384).num_hidden_layers(6).intermediate_size(1536));
//   auto out = encoder->forward(input_ids, attention_mask, token_type_ids);  // out.last_hidden_state: (B, T, 384)

#include <torch/torch.h>

#include <vector>

#include "models/bert_config.h"
#include "models/bert_layers.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// Which intermediate results a forward pass returns (transformers' output_hidden_states /
/// output_attentions).
struct BertForwardOptions {
  TORCH_ARG(bool, output_hidden_states) = false;
  TORCH_ARG(bool, output_attentions) = false;
};

/// BertModel's outputs.
struct BertModelOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C)
  torch::Tensor pooler_output;               ///< (B, C), undefined without a pooler
  std::vector<torch::Tensor> hidden_states;  ///< when asked: L+1 × (B, T, C); [0] is the embeddings output
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T) softmax probabilities
};

/// A sequence classifier's outputs (transformers' SequenceClassifierOutput without loss).
struct SequenceClassifierOutput {
  torch::Tensor logits;                      ///< (B, num_labels)
  std::vector<torch::Tensor> hidden_states;  ///< when asked, as BertModelOutput
  std::vector<torch::Tensor> attentions;     ///< when asked, as BertModelOutput
};

/// dense → tanh on the first token.
class BertPoolerImpl : public torch::nn::Module {
 public:
  explicit BertPoolerImpl(const BertOptions& options);
  /// hidden: (B, T, C) → (B, C); a (B, C) input is taken as the first token already.
  torch::Tensor forward(const torch::Tensor& hidden);

  TunableLinear dense{nullptr};
};
TORCH_MODULE(BertPooler);

/// The bare encoder: embeddings ("embeddings"), layers ("encoder.layer.<i>"), optional pooler ("pooler").
class BertModelImpl : public torch::nn::Module {
 public:
  /// transformers adds the pooler by default; RoBERTa's classifier and both families' span heads build it
  /// without one.
  explicit BertModelImpl(const BertOptions& options, bool add_pooling_layer = true);

  /// input_ids: (B, T) int64; attention_mask: (B, T) of 1 (attend) / 0 (padding), undefined = all 1;
  /// token_type_ids: (B, T), undefined = all 0.
  BertModelOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                          const torch::Tensor& token_type_ids = {}, const BertForwardOptions& outputs = {});

  /// The encoder output at position 0 only, (B, C): the last layer computes the query, attention output
  /// and feed-forward block of position 0 alone (its keys and values still cover every position). Equal
  /// to forward(...).last_hidden_state[:, 0] up to rounding, with one layer's work mostly skipped.
  torch::Tensor first_token_state(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                                  const torch::Tensor& token_type_ids = {});

  BertOptions options;
  BertEmbeddings embeddings{nullptr};
  BertEncoder encoder{nullptr};
  BertPooler pooler{nullptr};  // null without a pooling layer
};
TORCH_MODULE(BertModel);

}  // namespace capaboost
