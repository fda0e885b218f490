#pragma once
// The building blocks of DeBERTa-v2/v3, module for module and name for name as transformers 4.30.2's
// modeling_deberta_v2.py, so every parameter's dotted name equals its Hugging Face state-dict name.
// Every linear layer is a TunableLinear site; the self-attention is an attention site.

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "models/deberta_v2_config.h"
#include "models/parallel_dropout.h"
#include "models/transformer_blocks.h"
#include "sites/attention_site.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// word (+ absolute position when position_biased_input) (+ token type when type_vocab_size > 0)
/// embeddings → embed_proj when embedding_size ≠ hidden_size → LayerNorm → × mask → dropout.
class DebertaV2EmbeddingsImpl : public torch::nn::Module {
 public:
  explicit DebertaV2EmbeddingsImpl(const DebertaV2Options& options);
  /// input_ids: (B, T) int64; token_type_ids: (B, T) or undefined (all 0); mask: (B, T) of 1/0
  /// (padding positions come out as zero vectors) → (B, T, C).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& mask);

  torch::nn::Embedding word_embeddings{nullptr};
  torch::nn::Embedding position_embeddings{nullptr};    // null unless position_biased_input
  torch::nn::Embedding token_type_embeddings{nullptr};  // null unless type_vocab_size > 0
  TunableLinear embed_proj{nullptr};                    // null unless embedding_size ≠ hidden_size
  torch::nn::LayerNorm layer_norm{nullptr};             // "LayerNorm"
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(DebertaV2Embeddings);

/// What every layer's attention shares: the relative positions and their (normalised) embeddings.
struct RelativeContext {
  torch::Tensor positions;   ///< (T, T) int64 bucketed i − j, on the model's device; undefined without relative attention
  int64_t lowest = 0;        ///< min and max of `positions`, read once on the CPU for every layer
  int64_t highest = 0;
  torch::Tensor embeddings;  ///< (2·span, C) relative-position embeddings; undefined without
};

/// Disentangled self-attention: content-to-content scores plus, from the shared relative-position
/// embeddings, content-to-position (c2p) and position-to-content (p2c) terms, scaled by
/// 1/√(d · (1 + number of terms)).
class DisentangledSelfAttentionImpl : public AttentionSiteImpl {
 public:
  explicit DisentangledSelfAttentionImpl(const DebertaV2Options& options);
  /// hidden: (B, T, C); key_mask: additive (B, 1, 1, T) (0 to attend, the dtype's lowest to skip);
  /// query_keep: (B, 1, T, 1) of 1/0 — padded query rows get all-zero probabilities, as transformers'
  /// XSoftmax gives them. A key-value tuner may add key positions; the relative terms cover the
  /// sequence's own keys and are 0 for added ones. Returns the context (B, T, C) and the probabilities
  /// (B, H, T, T') after dropout.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& key_mask,
                                                  const torch::Tensor& query_keep, const RelativeContext& relative);

  TunableLinear query_proj{nullptr};
  TunableLinear key_proj{nullptr};
  TunableLinear value_proj{nullptr};
  TunableLinear pos_key_proj{nullptr};    // only without share_att_key, with c2p
  TunableLinear pos_query_proj{nullptr};  // only without share_att_key, with p2c
  ParallelDropout pos_dropout{nullptr};
  ParallelDropout dropout{nullptr};

 private:
  // c2p + p2c over the sequence's keys, already scaled: (B, H, T, T).
  torch::Tensor relative_scores(const torch::Tensor& query, const torch::Tensor& key, const RelativeContext& relative,
                                double scale);

  bool c2p_, p2c_, share_att_key_;
  int64_t span_;
};
TORCH_MODULE(DisentangledSelfAttention);

/// Self-attention ("self") and its output projection ("output").
class DebertaV2AttentionImpl : public torch::nn::Module {
 public:
  explicit DebertaV2AttentionImpl(const DebertaV2Options& options);
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& key_mask,
                                                  const torch::Tensor& query_keep, const RelativeContext& relative);

  DisentangledSelfAttention self_attention{nullptr};  // "self"
  ResidualOutput output{nullptr};
};
TORCH_MODULE(DebertaV2Attention);

/// One post-LayerNorm block: attention, then the feed-forward block.
class DebertaV2LayerImpl : public torch::nn::Module {
 public:
  explicit DebertaV2LayerImpl(const DebertaV2Options& options);
  /// hidden: (B, T, C) → (B, T, C) and attention probabilities (B, H, T, T').
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden, const torch::Tensor& key_mask,
                                                  const torch::Tensor& query_keep, const RelativeContext& relative);

  DebertaV2Attention attention{nullptr};
  Intermediate intermediate{nullptr};
  ResidualOutput output{nullptr};
};
TORCH_MODULE(DebertaV2Layer);

/// DeBERTa-v2's optional convolution after the first layer (conv_kernel_size > 0).
class DebertaV2ConvLayerImpl : public torch::nn::Module {
 public:
  explicit DebertaV2ConvLayerImpl(const DebertaV2Options& options);
  /// embeddings: the encoder's input (B, T, C); residual: the first layer's output (B, T, C);
  /// mask: (B, T) of 1/0 → (B, T, C), zero at padding.
  torch::Tensor forward(const torch::Tensor& embeddings, const torch::Tensor& residual, const torch::Tensor& mask);

  Activation activation;
  torch::nn::Conv1d conv{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "LayerNorm"
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(DebertaV2ConvLayer);

struct DebertaV2EncoderOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C)
  std::vector<torch::Tensor> hidden_states;  ///< when asked: input + every layer's output, L+1 × (B, T, C)
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T)
};

/// The layers ("layer.<i>"), the relative-position embeddings ("rel_embeddings") with their LayerNorm,
/// and the optional convolution ("conv").
class DebertaV2EncoderImpl : public torch::nn::Module {
 public:
  explicit DebertaV2EncoderImpl(const DebertaV2Options& options);
  /// hidden: (B, T, C) embeddings output; mask: (B, T) of 1/0.
  DebertaV2EncoderOutput forward(const torch::Tensor& hidden, const torch::Tensor& mask, bool output_hidden_states,
                                 bool output_attentions);

  torch::nn::ModuleList layer{nullptr};
  torch::nn::Embedding rel_embeddings{nullptr};  // null without relative attention
  torch::nn::LayerNorm layer_norm{nullptr};      // "LayerNorm", null unless norm_rel_ebd
  DebertaV2ConvLayer conv{nullptr};              // null unless conv_kernel_size > 0

 private:
  DebertaV2Options options_;
};
TORCH_MODULE(DebertaV2Encoder);

}  // namespace capaboost
