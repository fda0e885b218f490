#include "models/roberta_config.h"

#include "checkpoint/config_json.h"

namespace capaboost {
namespace {

// id2label is a JSON object {"0": name, "1": name, …}; every id from 0 to n-1 must be there.
std::vector<std::string> parse_id2label(const ConfigJson& config) {
  const auto& map = config.json()["id2label"];
  TORCH_CHECK(map.is_object() && !map.empty(), config.path(),
              ": field 'id2label' must be a non-empty object {\"0\": name, …}, got ", map.dump());
  std::vector<std::string> names(map.size());
  for (const auto& [key, value] : map.items()) {
    size_t used = 0;
    int64_t id = -1;
    try {
      id = std::stoll(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TORCH_CHECK(used == key.size() && id >= 0 && id < static_cast<int64_t>(names.size()), config.path(),
                ": field 'id2label' has key '", key, "'; keys must be the ids 0..", names.size() - 1);
    TORCH_CHECK(value.is_string(), config.path(), ": field 'id2label' maps ", key, " to ", value.dump(),
                "; names must be strings");
    names[id] = value.get<std::string>();
  }
  return names;
}

}  // namespace

void RobertaOptions::validate(const std::string& source) const {
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
  // Positions start at pad_token_id + 1, so the table must be longer than the padding offset.
  TORCH_CHECK(max_position_embeddings() > pad_token_id() + 1, source, ": max_position_embeddings ",
              max_position_embeddings(), " leaves no room after the padding offset pad_token_id + 1");
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

RobertaOptions load_roberta_config(const std::string& path) {
  const auto config = ConfigJson::load(path);
  if (config.has("model_type")) {
    const auto model_type = config.required<std::string>("model_type");
    TORCH_CHECK(model_type == "roberta", path, ": field 'model_type' is '", model_type,
                "'; this loader reads RoBERTa configs (model_type \"roberta\")");
  }
  const auto position_type = config.optional<std::string>("position_embedding_type", "absolute");
  TORCH_CHECK(position_type == "absolute", path, ": field 'position_embedding_type' is '", position_type,
              "'; only absolute position embeddings (RoBERTa's) are implemented");

  RobertaOptions options;
  options.vocab_size(config.required<int64_t>("vocab_size"))
      .hidden_size(config.required<int64_t>("hidden_size"))
      .num_hidden_layers(config.required<int64_t>("num_hidden_layers"))
      .num_attention_heads(config.required<int64_t>("num_attention_heads"))
      .intermediate_size(config.required<int64_t>("intermediate_size"))
      .max_position_embeddings(config.required<int64_t>("max_position_embeddings"))
      .type_vocab_size(config.required<int64_t>("type_vocab_size"));
  // The fall-backs below are transformers' RobertaConfig / PretrainedConfig defaults, so a sparse
  // config means what it means to transformers.
  try {
    options.hidden_act(parse_activation(config.optional<std::string>("hidden_act", "gelu")));
  } catch (const c10::Error& error) {
    TORCH_CHECK(false, path, ": field 'hidden_act': ", error.what_without_backtrace());
  }
  options.hidden_dropout_prob(config.optional<double>("hidden_dropout_prob", 0.1))
      .attention_probs_dropout_prob(config.optional<double>("attention_probs_dropout_prob", 0.1))
      .layer_norm_eps(config.optional<double>("layer_norm_eps", 1e-12))
      .initializer_range(config.optional<double>("initializer_range", 0.02))
      .pad_token_id(config.optional<int64_t>("pad_token_id", 1))
      .bos_token_id(config.optional<int64_t>("bos_token_id", 0))
      .eos_token_id(config.optional<int64_t>("eos_token_id", 2));
  if (config.has("classifier_dropout"))
    options.classifier_dropout(config.required<double>("classifier_dropout"));

  if (config.has("id2label")) {
    options.label_names(parse_id2label(config));
    options.num_labels(static_cast<int64_t>(options.label_names().size()));
    if (config.has("num_labels")) {
      const auto num_labels = config.required<int64_t>("num_labels");
      TORCH_CHECK(num_labels == options.num_labels(), path, ": field 'num_labels' is ", num_labels,
                  " but 'id2label' names ", options.num_labels(), " labels");
    }
  } else {
    options.num_labels(config.optional<int64_t>("num_labels", 2));
  }
  if (config.has("problem_type")) {
    try {
      options.problem_type(parse_problem_type(config.required<std::string>("problem_type")));
    } catch (const c10::Error& error) {
      TORCH_CHECK(false, path, ": field 'problem_type': ", error.what_without_backtrace());
    }
  }
  options.validate(path);
  return options;
}

nlohmann::json roberta_config_json(const RobertaOptions& options, const std::string& architecture) {
  nlohmann::json id2label = nlohmann::json::object();
  nlohmann::json label2id = nlohmann::json::object();
  for (int64_t i = 0; i < options.num_labels(); ++i) {
    const auto name = options.label_names().empty() ? "LABEL_" + std::to_string(i) : options.label_names()[i];
    id2label[std::to_string(i)] = name;
    label2id[name] = i;
  }
  nlohmann::json json = {
      {"architectures", nlohmann::json::array({architecture})},
      {"attention_probs_dropout_prob", options.attention_probs_dropout_prob()},
      {"bos_token_id", options.bos_token_id()},
      {"classifier_dropout", nullptr},
      {"eos_token_id", options.eos_token_id()},
      {"hidden_act", to_string(options.hidden_act())},
      {"hidden_dropout_prob", options.hidden_dropout_prob()},
      {"hidden_size", options.hidden_size()},
      {"id2label", id2label},
      {"initializer_range", options.initializer_range()},
      {"intermediate_size", options.intermediate_size()},
      {"label2id", label2id},
      {"layer_norm_eps", options.layer_norm_eps()},
      {"max_position_embeddings", options.max_position_embeddings()},
      {"model_type", "roberta"},
      {"num_attention_heads", options.num_attention_heads()},
      {"num_hidden_layers", options.num_hidden_layers()},
      {"pad_token_id", options.pad_token_id()},
      {"position_embedding_type", "absolute"},
      {"torch_dtype", "float32"},
      {"type_vocab_size", options.type_vocab_size()},
      {"use_cache", true},
      {"vocab_size", options.vocab_size()},
  };
  if (options.classifier_dropout()) json["classifier_dropout"] = *options.classifier_dropout();
  if (options.problem_type()) json["problem_type"] = to_string(*options.problem_type());
  return json;
}

}  // namespace capaboost
