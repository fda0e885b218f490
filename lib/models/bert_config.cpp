#include "models/bert_config.h"

#include "checkpoint/config_json.h"

namespace capaboost {

std::string to_string(BertFamily family) {
  switch (family) {
    case BertFamily::kBert:
      return "bert";
    case BertFamily::kRoberta:
      return "roberta";
  }
  TORCH_CHECK(false, "unknown BertFamily ", static_cast<int>(family));
}

BertOptions roberta_options() {
  return BertOptions()
      .family(BertFamily::kRoberta)
      .vocab_size(50265)
      .max_position_embeddings(514)
      .type_vocab_size(1)
      .layer_norm_eps(1e-5)
      .pad_token_id(1)
      .bos_token_id(0)
      .eos_token_id(2);
}

PositionEmbeddingType parse_position_embedding_type(const std::string& name) {
  if (name == "absolute") return PositionEmbeddingType::kAbsolute;
  if (name == "relative_key") return PositionEmbeddingType::kRelativeKey;
  if (name == "relative_key_query") return PositionEmbeddingType::kRelativeKeyQuery;
  TORCH_CHECK(false, "unsupported position_embedding_type '", name,
              "'; choose absolute, relative_key or relative_key_query");
}

std::string to_string(PositionEmbeddingType type) {
  switch (type) {
    case PositionEmbeddingType::kAbsolute:
      return "absolute";
    case PositionEmbeddingType::kRelativeKey:
      return "relative_key";
    case PositionEmbeddingType::kRelativeKeyQuery:
      return "relative_key_query";
  }
  TORCH_CHECK(false, "unknown PositionEmbeddingType ", static_cast<int>(type));
}

int64_t BertOptions::max_length() const {
  if (family() == BertFamily::kRoberta && position_embedding_type() == PositionEmbeddingType::kAbsolute)
    return max_position_embeddings() - pad_token_id() - 1;
  return max_position_embeddings();
}

void BertOptions::validate(const std::string& source) const {
  const auto positive = [&](int64_t value, const char* field) {
    TORCH_CHECK(value > 0, source, ": field '", field, "' must be positive, got ", value);
  };
  positive(vocab_size(), "vocab_size");
  positive(hidden_size(), "hidden_size");
  positive(num_hidden_layers(), "num_hidden_layers");
  positive(num_attention_heads(), "num_attention_heads");
  positive(intermediate_size(), "intermediate_size");
  positive(max_position_embeddings(), "max_position_embeddings");
  positive(type_vocab_size(), "type_vocab_size");
  positive(num_labels(), "num_labels");
  TORCH_CHECK(hidden_size() % num_attention_heads() == 0, source, ": hidden_size ", hidden_size(),
              " is not a multiple of num_attention_heads ", num_attention_heads());
  TORCH_CHECK(pad_token_id() >= 0 && pad_token_id() < vocab_size(), source, ": field 'pad_token_id' ",
              pad_token_id(), " is outside the vocabulary of ", vocab_size());
  // RoBERTa's positions start at pad_token_id + 1, so its table must be longer than the padding offset.
  TORCH_CHECK(family() != BertFamily::kRoberta || max_position_embeddings() > pad_token_id() + 1, source,
              ": max_position_embeddings ", max_position_embeddings(),
              " leaves no room after RoBERTa's padding offset pad_token_id + 1");
  for (auto [p, field] : {std::pair<double, const char*>{hidden_dropout_prob(), "hidden_dropout_prob"},
                          {attention_probs_dropout_prob(), "attention_probs_dropout_prob"},
                          {effective_classifier_dropout(), "classifier_dropout"}}) {
    TORCH_CHECK(p >= 0.0 && p < 1.0, source, ": field '", field, "' must be in [0, 1), got ", p);
  }
  TORCH_CHECK(layer_norm_eps() > 0.0, source, ": field 'layer_norm_eps' must be positive, got ",
              layer_norm_eps());
  TORCH_CHECK(label_names().empty() || static_cast<int64_t>(label_names().size()) == num_labels(), source,
              ": ", label_names().size(), " label names for num_labels ", num_labels());
}

BertOptions load_bert_family_config(const std::string& path, BertFamily family) {
  const auto config = ConfigJson::load(path);
  const auto expected = to_string(family);
  if (config.has("model_type")) {
    const auto model_type = config.required<std::string>("model_type");
    TORCH_CHECK(model_type == expected, path, ": field 'model_type' is '", model_type, "'; this loader reads ",
                expected, " configs (model_type \"", expected, "\")");
  }
  const bool roberta = family == BertFamily::kRoberta;
  BertOptions options;
  options.family(family);
  options.vocab_size(config.required<int64_t>("vocab_size"))
      .hidden_size(config.required<int64_t>("hidden_size"))
      .num_hidden_layers(config.required<int64_t>("num_hidden_layers"))
      .num_attention_heads(config.required<int64_t>("num_attention_heads"))
      .intermediate_size(config.required<int64_t>("intermediate_size"))
      .max_position_embeddings(config.required<int64_t>("max_position_embeddings"))
      .type_vocab_size(config.required<int64_t>("type_vocab_size"));
  // The fall-backs below are transformers' BertConfig / RobertaConfig / PretrainedConfig defaults, so a
  // sparse config means what it means to transformers (they differ only in the padding id).
  options.hidden_act(config.parsed("hidden_act", "gelu", parse_activation));
  options.position_embedding_type(
      config.parsed("position_embedding_type", "absolute", parse_position_embedding_type));
  options.hidden_dropout_prob(config.optional<double>("hidden_dropout_prob", 0.1))
      .attention_probs_dropout_prob(config.optional<double>("attention_probs_dropout_prob", 0.1))
      .layer_norm_eps(config.optional<double>("layer_norm_eps", 1e-12))
      .initializer_range(config.optional<double>("initializer_range", 0.02))
      .pad_token_id(config.optional<int64_t>("pad_token_id", roberta ? 1 : 0))
      .bos_token_id(config.optional<int64_t>("bos_token_id", 0))
      .eos_token_id(config.optional<int64_t>("eos_token_id", 2));
  if (config.has("classifier_dropout"))
    options.classifier_dropout(config.required<double>("classifier_dropout"));

  const ConfigLabels labels = parse_labels(config);
  options.num_labels(labels.num_labels).label_names(labels.names);
  if (config.has("problem_type")) options.problem_type(config.parsed("problem_type", "", parse_problem_type));
  options.validate(path);
  return options;
}

BertOptions load_roberta_config(const std::string& path) { return load_bert_family_config(path, BertFamily::kRoberta); }

BertOptions load_bert_config(const std::string& path) { return load_bert_family_config(path, BertFamily::kBert); }

nlohmann::json bert_config_json(const BertOptions& options, const std::string& architecture) {
  nlohmann::json json = {
      {"architectures", nlohmann::json::array({architecture})},
      {"attention_probs_dropout_prob", options.attention_probs_dropout_prob()},
      {"bos_token_id", options.bos_token_id()},
      {"classifier_dropout", nullptr},
      {"eos_token_id", options.eos_token_id()},
      {"hidden_act", to_string(options.hidden_act())},
      {"hidden_dropout_prob", options.hidden_dropout_prob()},
      {"hidden_size", options.hidden_size()},
      {"initializer_range", options.initializer_range()},
      {"intermediate_size", options.intermediate_size()},
      {"layer_norm_eps", options.layer_norm_eps()},
      {"max_position_embeddings", options.max_position_embeddings()},
      {"model_type", to_string(options.family())},
      {"num_attention_heads", options.num_attention_heads()},
      {"num_hidden_layers", options.num_hidden_layers()},
      {"pad_token_id", options.pad_token_id()},
      {"position_embedding_type", to_string(options.position_embedding_type())},
      {"torch_dtype", "float32"},
      {"type_vocab_size", options.type_vocab_size()},
      {"use_cache", true},
      {"vocab_size", options.vocab_size()},
  };
  if (options.family() == BertFamily::kBert) {
    json.erase("bos_token_id");
    json.erase("eos_token_id");
  }
  write_labels(json, options.num_labels(), options.label_names());
  if (options.classifier_dropout()) json["classifier_dropout"] = *options.classifier_dropout();
  if (options.problem_type()) json["problem_type"] = to_string(*options.problem_type());
  return json;
}

}  // namespace capaboost
