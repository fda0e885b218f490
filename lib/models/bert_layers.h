#pragma once
// The building blocks of the BERT family (BERT and RoBERTa), module for module and name for name as
// transformers' modeling_bert.py / modeling_roberta.py, so that every parameter's dotted name equals its
// Hugging Face state-dict name. The two differ only in the embeddings' position ids (BertEmbeddings).
// Every linear layer is a TunableLinear site (tuners attach by name).

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "models/parallel_dropout.h"
#include "models/bert_config.h"
#include "models/transformer_blocks.h"
#include "sites/attention_site.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// RoBERTa's position ids: padding tokens get pad_token_id; real tokens get pad_token_id + 1, + 2, …
/// counted over the real tokens only, so left padding does not shift them. Computed from input_ids,
/// not from the attention mask, exactly as transformers does. input_ids: (B, T) → (B, T) int64.
torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, int64_t pad_token_id);

/// The position ids of `family`: RoBERTa's (roberta_position_ids), or BERT's 0, 1, …, T − 1 on every row.
/// input_ids: (B, T) → (B, T) int64.
torch::Tensor bert_family_position_ids(const torch::Tensor& input_ids, BertFamily family, int64_t pad_token_id);

/// The additive attention mask transformers builds: 0 where attention_mask is 1, the dtype's lowest
/// finite value where it is 0. attention_mask: (B, T) → (B, 1, 1, T) in `dtype`.
torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask, torch::ScalarType dtype);

/// transformers' relative-position term of the attention scores, before the 1/√d scale. With
/// e(δ) = row δ + M − 1 of `distance_embedding` (2M − 1, d), query position l and key position r:
/// q_l · e(l − r) for "relative_key", plus k_r · e(l − r) for "relative_key_query". Queries sit at
/// positions 0 … Tq − 1 (Tq = 1 in first-token mode), keys at 0 … T − 1.
/// q: (B, H, Tq, d), k: (B, H, T, d) → (B, H, Tq, T). Throws when T exceeds M (some distance has no row).
torch::Tensor relative_position_scores(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& distance_embedding, PositionEmbeddingType type);

/// word + position + token-type embeddings → LayerNorm → dropout. The position table is added only for
/// absolute positions; relative types keep it as an unused parameter, as transformers does. Only
/// RoBERTa's position table has a padding row (its padding_idx): BERT's pad id 0 is also the position of
/// [CLS], whose row must train.
class BertEmbeddingsImpl : public torch::nn::Module {
 public:
  explicit BertEmbeddingsImpl(const BertOptions& options);
  /// input_ids: (B, T) int64; token_type_ids: (B, T), or undefined for all type 0 → (B, T, C).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids = {});

  BertFamily family;
  int64_t pad_token_id;
  PositionEmbeddingType position_embedding_type;
  torch::nn::Embedding word_embeddings{nullptr};
  torch::nn::Embedding position_embeddings{nullptr};
  torch::nn::Embedding token_type_embeddings{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "LayerNorm"
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(BertEmbeddings);

/// Multi-head scaled dot-product attention with the query/key/value sites; an attention site, so a
/// key-value tuner (prefix tuning) can extend its keys and values. With a relative position type the
/// scores add relative_position_scores; key positions a tuner adds are positionless (relative term 0).
class BertSelfAttentionImpl : public AttentionSiteImpl {
 public:
  explicit BertSelfAttentionImpl(const BertOptions& options);
  /// hidden: (B, T, C); mask: additive (B, 1, 1, T) or undefined. With `first_token_only` only position
  /// 0 queries (keys and values still cover every position), Tq = 1; otherwise Tq = T.
  /// Returns the context (B, Tq, C) and, with `return_probabilities`, the attention probabilities
  /// (B, H, Tq, T) after dropout. Without, they are undefined: the layer may then run the fused attention
  /// kernel (models/fused_attention.h), which keeps them to itself.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                                                  bool first_token_only = false, bool return_probabilities = true);

  TunableLinear query{nullptr};
  TunableLinear key{nullptr};
  TunableLinear value{nullptr};
  ParallelDropout dropout{nullptr};
  PositionEmbeddingType position_embedding_type;
  /// (2·max_position_embeddings − 1, head size) rows for relative types; empty (unregistered) otherwise.
  torch::nn::Embedding distance_embedding{nullptr};
};
TORCH_MODULE(BertSelfAttention);

/// Self-attention ("self") and its output projection ("output").
class BertAttentionImpl : public torch::nn::Module {
 public:
  explicit BertAttentionImpl(const BertOptions& options);
  /// hidden: (B, T, C) → (B, Tq, C) and probabilities (B, H, Tq, T); see BertSelfAttention.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                                                  bool first_token_only = false, bool return_probabilities = true);

  BertSelfAttention self_attention{nullptr};  // "self"
  ResidualOutput output{nullptr};
};
TORCH_MODULE(BertAttention);

/// One post-LayerNorm transformer block: attention, then the feed-forward block.
class BertLayerImpl : public torch::nn::Module {
 public:
  explicit BertLayerImpl(const BertOptions& options);
  /// hidden: (B, T, C) → (B, Tq, C) and attention probabilities (B, H, Tq, T); see BertSelfAttention.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                                                  bool first_token_only = false, bool return_probabilities = true);

  BertAttention attention{nullptr};
  Intermediate intermediate{nullptr};
  ResidualOutput output{nullptr};
};
TORCH_MODULE(BertLayer);

/// What the encoder hands back.
struct BertEncoderOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C); (B, 1, C) in first-token mode
  std::vector<torch::Tensor> hidden_states;  ///< when asked: input + every layer's output, L+1 × (B, T, C)
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T)
};

/// The stack of layers ("layer.<i>").
class BertEncoderImpl : public torch::nn::Module {
 public:
  explicit BertEncoderImpl(const BertOptions& options);
  /// hidden: (B, T, C) embeddings output. `first_token_only` applies to the last layer only (position 0
  /// is all a classification head reads); it cannot be combined with collecting hidden states or
  /// attentions, which would then be partial.
  BertEncoderOutput forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                               bool output_hidden_states, bool output_attentions,
                               bool first_token_only = false);

  torch::nn::ModuleList layer{nullptr};
};
TORCH_MODULE(BertEncoder);

}  // namespace capaboost
