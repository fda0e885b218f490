#pragma once
// DeBERTa-v2/v3's hyper-parameters and their Hugging Face `config.json` form (model_type "deberta-v2").

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/activation.h"
#include "models/classification_loss.h"

namespace capaboost {

/// Field names and meanings are transformers' DebertaV2Config. Defaults are microsoft/deberta-v3-base's
/// config.json (which differ from DebertaV2Config's class defaults, a 24-layer xlarge shape).
struct DebertaV2Options {
  TORCH_ARG(int64_t, vocab_size) = 128100;
  TORCH_ARG(int64_t, hidden_size) = 768;
  TORCH_ARG(int64_t, num_hidden_layers) = 12;
  TORCH_ARG(int64_t, num_attention_heads) = 12;
  TORCH_ARG(int64_t, intermediate_size) = 3072;
  TORCH_ARG(Activation, hidden_act) = Activation::kGelu;
  TORCH_ARG(double, hidden_dropout_prob) = 0.1;
  TORCH_ARG(double, attention_probs_dropout_prob) = 0.1;
  TORCH_ARG(int64_t, max_position_embeddings) = 512;
  /// 0: no token-type embeddings (DeBERTaV3).
  TORCH_ARG(int64_t, type_vocab_size) = 0;
  TORCH_ARG(double, initializer_range) = 0.02;
  TORCH_ARG(double, layer_norm_eps) = 1e-7;
  TORCH_ARG(int64_t, pad_token_id) = 0;
  /// Word-embedding width; unset: hidden_size (otherwise an `embed_proj` maps it to hidden_size).
  TORCH_ARG(std::optional<int64_t>, embedding_size) = std::nullopt;
  /// Absolute position embeddings added to the input (DeBERTaV3: none, positions are relative only).
  TORCH_ARG(bool, position_biased_input) = false;
  TORCH_ARG(bool, relative_attention) = true;
  /// Unset or < 1: max_position_embeddings.
  TORCH_ARG(int64_t, max_relative_positions) = -1;
  /// > 0: relative distances beyond position_buckets / 2 are bucketed logarithmically.
  TORCH_ARG(int64_t, position_buckets) = 256;
  /// Disentangled terms: "c2p" (content to position) and/or "p2c" (position to content).
  TORCH_ARG(std::vector<std::string>, pos_att_type) = std::vector<std::string>{"p2c", "c2p"};
  /// Position projections reuse the content query/key projections (DeBERTaV3) instead of their own.
  TORCH_ARG(bool, share_att_key) = true;
  /// LayerNorm on the relative-position embeddings ("layer_norm") or none ("none").
  TORCH_ARG(bool, norm_rel_ebd) = true;
  /// > 0: a convolution after the first layer (DeBERTa-v2 xlarge); 0: none.
  TORCH_ARG(int64_t, conv_kernel_size) = 0;
  TORCH_ARG(int64_t, conv_groups) = 1;
  TORCH_ARG(Activation, conv_act) = Activation::kTanh;
  TORCH_ARG(Activation, pooler_hidden_act) = Activation::kGelu;
  TORCH_ARG(double, pooler_dropout) = 0.0;
  /// Dropout before the classifier; unset: hidden_dropout_prob.
  TORCH_ARG(std::optional<double>, cls_dropout) = std::nullopt;
  TORCH_ARG(int64_t, num_labels) = 2;
  TORCH_ARG(std::vector<std::string>, label_names) = {};
  TORCH_ARG(std::optional<ProblemType>, problem_type) = std::nullopt;

 public:
  int64_t effective_embedding_size() const { return embedding_size().value_or(hidden_size()); }
  int64_t effective_max_relative_positions() const {
    return max_relative_positions() < 1 ? max_position_embeddings() : max_relative_positions();
  }
  /// Half the number of relative-position embeddings (att_span in transformers).
  int64_t position_span() const { return position_buckets() > 0 ? position_buckets() : effective_max_relative_positions(); }
  bool has_c2p() const;
  bool has_p2c() const;
  /// Throws, naming `source` and the field, on values no model can be built from.
  void validate(const std::string& source = "DebertaV2Options") const;
};

/// Reads a Hugging Face DeBERTa-v2/v3 config.json. Required (they fix the weight shapes): vocab_size,
/// hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, max_position_embeddings.
/// Every other field falls back to what transformers 4.30.2 assumes when it is absent (DebertaV2Config's
/// defaults and the model's getattr defaults: relative_attention false, position_buckets -1,
/// share_att_key false, norm_rel_ebd "none", position_biased_input true, type_vocab_size 0). Throws,
/// naming the file and the field, on a missing required field, a wrong type, an unknown pos_att_type
/// or norm_rel_ebd, or a model_type other than "deberta-v2".
DebertaV2Options load_deberta_v2_config(const std::string& path);

/// The config.json content for these options; `architecture` goes into "architectures".
nlohmann::json deberta_v2_config_json(const DebertaV2Options& options, const std::string& architecture);

}  // namespace capaboost
