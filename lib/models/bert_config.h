#pragma once
// The BERT family's hyper-parameters and their Hugging Face `config.json` form. In transformers RoBERTa
// is BERT with other embeddings (positions counted after the padding index, one token type) and another
// classification head; here both are one encoder (models/bert_model.h) whose options say which family
// it is, and each family keeps its own defaults (bert_options() / roberta_options()).

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

/// Which member of the BERT family a config describes: what differs between them in the encoder.
enum class BertFamily {
  kBert,     ///< model_type "bert": absolute positions 0, 1, …; token types; pooler-based classifier
  kRoberta,  ///< model_type "roberta": positions start after pad_token_id and skip padding (their table's
             ///< padding row is a padding_idx), one token type, dense → tanh → out_proj classifier
};

/// "bert" or "roberta" (the config's model_type and the base module's name in checkpoints).
std::string to_string(BertFamily family);

/// Field names and meanings are transformers' BertConfig / RobertaConfig. The defaults are
/// bert-base-uncased's config.json; roberta_options() gives roberta-base's.
struct BertOptions {
  TORCH_ARG(BertFamily, family) = BertFamily::kBert;
  TORCH_ARG(int64_t, vocab_size) = 30522;
  TORCH_ARG(int64_t, hidden_size) = 768;
  TORCH_ARG(int64_t, num_hidden_layers) = 12;
  TORCH_ARG(int64_t, num_attention_heads) = 12;
  TORCH_ARG(int64_t, intermediate_size) = 3072;
  TORCH_ARG(Activation, hidden_act) = Activation::kGelu;
  TORCH_ARG(double, hidden_dropout_prob) = 0.1;
  TORCH_ARG(double, attention_probs_dropout_prob) = 0.1;
  /// Dropout inside the classification head; unset means hidden_dropout_prob (as transformers).
  TORCH_ARG(std::optional<double>, classifier_dropout) = std::nullopt;
  TORCH_ARG(int64_t, max_position_embeddings) = 512;
  TORCH_ARG(int64_t, type_vocab_size) = 2;
  /// Relative types keep the absolute table as a parameter (transformers does) but add it nowhere, and
  /// give every self-attention a `distance_embedding` of 2·max_position_embeddings − 1 rows.
  TORCH_ARG(PositionEmbeddingType, position_embedding_type) = PositionEmbeddingType::kAbsolute;
  TORCH_ARG(double, layer_norm_eps) = 1e-12;
  /// Standard deviation of the normal initialisation of fresh weights.
  TORCH_ARG(double, initializer_range) = 0.02;
  TORCH_ARG(int64_t, pad_token_id) = 0;
  /// RoBERTa's <s> and </s>; BERT configs carry none (not written for the BERT family).
  TORCH_ARG(int64_t, bos_token_id) = 0;
  TORCH_ARG(int64_t, eos_token_id) = 2;
  /// Outputs of the classification head; 1 means regression.
  TORCH_ARG(int64_t, num_labels) = 2;
  /// id2label names; empty means "LABEL_<i>".
  TORCH_ARG(std::vector<std::string>, label_names) = {};
  /// Unset: inferred from num_labels and the labels' dtype when the loss is computed (as transformers).
  TORCH_ARG(std::optional<ProblemType>, problem_type) = std::nullopt;

 public:
  /// The longest input in tokens: RoBERTa's absolute positions start after the padding offset
  /// (pad_token_id + 1), BERT's at 0; relative ones need every distance below max_position_embeddings.
  int64_t max_length() const;
  /// The name of the encoder inside task models and checkpoints ("bert." / "roberta." prefixes).
  std::string base_model_prefix() const { return to_string(family()); }
  /// Head dropout actually used.
  double effective_classifier_dropout() const { return classifier_dropout().value_or(hidden_dropout_prob()); }
  /// Throws, naming `source` and the field, on values no model can be built from.
  void validate(const std::string& source = "BertOptions") const;
};

/// roberta-base's config.json: BertOptions with the RoBERTa family's values (vocabulary 50265, 514
/// positions, one token type, pad 1, LayerNorm eps 1e-5).
BertOptions roberta_options();
/// bert-base-uncased's config.json (the BertOptions defaults).
inline BertOptions bert_options() { return BertOptions(); }

/// Reads a Hugging Face BERT-family config.json of `family`. Required (they fix the weight shapes):
/// vocab_size, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
/// max_position_embeddings, type_vocab_size. Every other field falls back to transformers' BertConfig /
/// RobertaConfig default when absent; num_labels comes from id2label, else num_labels, else 2. Unknown
/// fields are ignored. Throws, naming the file and the field, on a missing required field, a wrong type,
/// an unsupported hidden_act or position_embedding_type (absolute, relative_key, relative_key_query), or
/// a model_type other than the family's ("bert" / "roberta"; a config without model_type is read as
/// `family`).
BertOptions load_bert_family_config(const std::string& path, BertFamily family);
/// load_bert_family_config(path, BertFamily::kRoberta).
BertOptions load_roberta_config(const std::string& path);
/// load_bert_family_config(path, BertFamily::kBert).
BertOptions load_bert_config(const std::string& path);

/// The config.json content transformers writes for these options (keys sorted, as it does; model_type
/// from the family); `architecture` goes into "architectures" (e.g. "RobertaForSequenceClassification").
nlohmann::json bert_config_json(const BertOptions& options, const std::string& architecture);

}  // namespace capaboost
