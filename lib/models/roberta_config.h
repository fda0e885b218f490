#pragma once
// RoBERTa's hyper-parameters and their Hugging Face `config.json` form.

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/activation.h"
#include "models/classification_loss.h"

namespace capaboost {

/// How attention tells positions apart: transformers' `position_embedding_type` of BERT/RoBERTa.
enum class PositionEmbeddingType {
  kAbsolute,          ///< "absolute": a learned table indexed by position, added to the embeddings
  kRelativeKey,       ///< "relative_key": a learned vector per distance, scored against the query
                      ///< (Shaw et al. 2018)
  kRelativeKeyQuery,  ///< "relative_key_query": scored against the query and the key (Huang et al.
                      ///< 2020, method 4)
};

/// Parses a `position_embedding_type` value; throws listing the supported names.
PositionEmbeddingType parse_position_embedding_type(const std::string& name);
std::string to_string(PositionEmbeddingType type);

/// Field names and meanings are transformers' RobertaConfig. Defaults are roberta-base's config.json.
struct RobertaOptions {
  TORCH_ARG(int64_t, vocab_size) = 50265;
  TORCH_ARG(int64_t, hidden_size) = 768;
  TORCH_ARG(int64_t, num_hidden_layers) = 12;
  TORCH_ARG(int64_t, num_attention_heads) = 12;
  TORCH_ARG(int64_t, intermediate_size) = 3072;
  TORCH_ARG(Activation, hidden_act) = Activation::kGelu;
  TORCH_ARG(double, hidden_dropout_prob) = 0.1;
  TORCH_ARG(double, attention_probs_dropout_prob) = 0.1;
  /// Dropout inside the classification head; unset means hidden_dropout_prob (as transformers).
  TORCH_ARG(std::optional<double>, classifier_dropout) = std::nullopt;
  TORCH_ARG(int64_t, max_position_embeddings) = 514;
  TORCH_ARG(int64_t, type_vocab_size) = 1;
  /// Relative types keep the absolute table as a parameter (transformers does) but add it nowhere, and
  /// give every self-attention a `distance_embedding` of 2·max_position_embeddings − 1 rows.
  TORCH_ARG(PositionEmbeddingType, position_embedding_type) = PositionEmbeddingType::kAbsolute;
  TORCH_ARG(double, layer_norm_eps) = 1e-5;
  /// Standard deviation of the normal initialisation of fresh weights.
  TORCH_ARG(double, initializer_range) = 0.02;
  TORCH_ARG(int64_t, pad_token_id) = 1;
  TORCH_ARG(int64_t, bos_token_id) = 0;
  TORCH_ARG(int64_t, eos_token_id) = 2;
  /// Outputs of the classification head; 1 means regression.
  TORCH_ARG(int64_t, num_labels) = 2;
  /// id2label names; empty means "LABEL_<i>".
  TORCH_ARG(std::vector<std::string>, label_names) = {};
  /// Unset: inferred from num_labels and the labels' dtype when the loss is computed (as transformers).
  TORCH_ARG(std::optional<ProblemType>, problem_type) = std::nullopt;

 public:
  /// The longest input in tokens: absolute positions start after the padding offset (pad_token_id + 1);
  /// relative ones need every distance below max_position_embeddings.
  int64_t max_length() const;
  /// Head dropout actually used.
  double effective_classifier_dropout() const { return classifier_dropout().value_or(hidden_dropout_prob()); }
  /// Throws, naming `source` and the field, on values no model can be built from.
  void validate(const std::string& source = "RobertaOptions") const;
};

/// Reads a Hugging Face RoBERTa config.json. Required (they fix the weight shapes): vocab_size,
/// hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, max_position_embeddings,
/// type_vocab_size. Every other field falls back to transformers' RobertaConfig default when absent;
/// num_labels comes from id2label, else num_labels, else 2. Unknown fields are ignored. Throws, naming
/// the file and the field, on a missing required field, a wrong type, an unsupported hidden_act or
/// position_embedding_type (absolute, relative_key, relative_key_query), or a model_type other than "roberta".
RobertaOptions load_roberta_config(const std::string& path);

/// The config.json content transformers writes for these options (keys sorted, as it does);
/// `architecture` goes into "architectures" (e.g. "RobertaForSequenceClassification").
nlohmann::json roberta_config_json(const RobertaOptions& options, const std::string& architecture);

}  // namespace capaboost
