#include "models/llama_config.h"

#include "checkpoint/config_json.h"

namespace capaboost {

void LlamaOptions::validate(const std::string& source) const {
  const auto positive = [&](int64_t value, const char* field) {
    TORCH_CHECK(value > 0, source, ": field '", field, "' must be positive, got ", value);
  };
  positive(vocab_size(), "vocab_size");
  positive(hidden_size(), "hidden_size");
  positive(intermediate_size(), "intermediate_size");
  positive(num_hidden_layers(), "num_hidden_layers");
  positive(num_attention_heads(), "num_attention_heads");
  positive(num_key_value_heads(), "num_key_value_heads");
  positive(max_position_embeddings(), "max_position_embeddings");
  positive(num_labels(), "num_labels");
  TORCH_CHECK(head_dim() >= 0, source, ": field 'head_dim' must not be negative, got ", head_dim());
  TORCH_CHECK(head_dim() > 0 || hidden_size() % num_attention_heads() == 0, source, ": hidden_size ", hidden_size(),
              " is not a multiple of num_attention_heads ", num_attention_heads(), " (and head_dim is unset)");
  // RoPE rotates pairs (i, i + d/2) of every head.
  TORCH_CHECK(head_size() % 2 == 0, source, ": the head width ", head_size(), " must be even for rotary embeddings");
  TORCH_CHECK(num_attention_heads() % num_key_value_heads() == 0, source, ": num_attention_heads ",
              num_attention_heads(), " is not a multiple of num_key_value_heads ", num_key_value_heads());
  TORCH_CHECK(rms_norm_eps() > 0.0, source, ": field 'rms_norm_eps' must be positive, got ", rms_norm_eps());
  TORCH_CHECK(rope_theta() > 0.0, source, ": field 'rope_theta' must be positive, got ", rope_theta());
  TORCH_CHECK(attention_dropout() >= 0.0 && attention_dropout() < 1.0, source,
              ": field 'attention_dropout' must be in [0, 1), got ", attention_dropout());
  if (pad_token_id()) {
    TORCH_CHECK(*pad_token_id() >= 0 && *pad_token_id() < vocab_size(), source, ": pad_token_id ", *pad_token_id(),
                " is outside the vocabulary [0, ", vocab_size(), ")");
  }
  TORCH_CHECK(label_names().empty() || static_cast<int64_t>(label_names().size()) == num_labels(), source, ": ",
              label_names().size(), " label names for num_labels ", num_labels());
}

LlamaOptions load_llama_config(const std::string& path) {
  const auto config = ConfigJson::load(path);
  const auto model_type = config.optional<std::string>("model_type", "llama");
  TORCH_CHECK(model_type == "llama", path, ": field 'model_type' is '", model_type,
              "'; this loader reads Llama configs (model_type \"llama\")");
  const auto activation = config.optional<std::string>("hidden_act", "silu");
  TORCH_CHECK(activation == "silu", path, ": field 'hidden_act' is '", activation,
              "'; Llama models here use SiLU (SwiGLU feed-forward)");
  TORCH_CHECK(!config.has("rope_scaling"), path,
              ": field 'rope_scaling' is set; only plain rotary embeddings are supported (remove the field or use a "
              "model without RoPE scaling)");
  const auto pretraining_tp = config.optional<int64_t>("pretraining_tp", 1);
  TORCH_CHECK(pretraining_tp == 1, path, ": field 'pretraining_tp' is ", pretraining_tp,
              "; only 1 (one matrix per projection) is supported");
  // transformers' LlamaConfig defaults (Llama-2-7B's shape), not SmolLM2's: a config.json that omits a
  // field means what it means to transformers.
  LlamaOptions options;
  options.vocab_size(config.optional<int64_t>("vocab_size", 32000))
      .hidden_size(config.optional<int64_t>("hidden_size", 4096))
      .intermediate_size(config.optional<int64_t>("intermediate_size", 11008))
      .num_hidden_layers(config.optional<int64_t>("num_hidden_layers", 32))
      .num_attention_heads(config.optional<int64_t>("num_attention_heads", 32));
  options.num_key_value_heads(config.optional<int64_t>("num_key_value_heads", options.num_attention_heads()))
      .head_dim(config.optional<int64_t>("head_dim", 0))
      .max_position_embeddings(config.optional<int64_t>("max_position_embeddings", 2048))
      .rms_norm_eps(config.optional<double>("rms_norm_eps", 1e-6))
      .rope_theta(config.optional<double>("rope_theta", 10000.0))
      .initializer_range(config.optional<double>("initializer_range", 0.02))
      .attention_dropout(config.optional<double>("attention_dropout", 0.0))
      .attention_bias(config.optional<bool>("attention_bias", false))
      .mlp_bias(config.optional<bool>("mlp_bias", false))
      .tie_word_embeddings(config.optional<bool>("tie_word_embeddings", false))
      .bos_token_id(config.optional<int64_t>("bos_token_id", 1))
      .eos_token_id(config.optional<int64_t>("eos_token_id", 2));
  options.pad_token_id(config.has("pad_token_id") ? std::optional<int64_t>(config.required<int64_t>("pad_token_id"))
                                                  : std::nullopt);
  const ConfigLabels labels = parse_labels(config);
  options.num_labels(labels.num_labels).label_names(labels.names);
  if (config.has("problem_type")) options.problem_type(config.parsed("problem_type", "", parse_problem_type));
  options.validate(path);
  return options;
}

nlohmann::json llama_config_json(const LlamaOptions& options, const std::string& architecture) {
  nlohmann::json json = {
      {"architectures", nlohmann::json::array({architecture})},
      {"attention_bias", options.attention_bias()},
      {"attention_dropout", options.attention_dropout()},
      {"bos_token_id", options.bos_token_id()},
      {"eos_token_id", options.eos_token_id()},
      {"head_dim", options.head_size()},
      {"hidden_act", "silu"},
      {"hidden_size", options.hidden_size()},
      {"initializer_range", options.initializer_range()},
      {"intermediate_size", options.intermediate_size()},
      {"max_position_embeddings", options.max_position_embeddings()},
      {"mlp_bias", options.mlp_bias()},
      {"model_type", "llama"},
      {"num_attention_heads", options.num_attention_heads()},
      {"num_hidden_layers", options.num_hidden_layers()},
      {"num_key_value_heads", options.num_key_value_heads()},
      {"pretraining_tp", 1},
      {"rms_norm_eps", options.rms_norm_eps()},
      {"rope_scaling", nullptr},
      {"rope_theta", options.rope_theta()},
      {"tie_word_embeddings", options.tie_word_embeddings()},
      {"torch_dtype", "float32"},
      {"use_cache", true},
      {"vocab_size", options.vocab_size()},
  };
  json["pad_token_id"] = options.pad_token_id() ? nlohmann::json(*options.pad_token_id()) : nlohmann::json(nullptr);
  write_labels(json, options.num_labels(), options.label_names());
  if (options.problem_type()) json["problem_type"] = to_string(*options.problem_type());
  return json;
}

}  // namespace capaboost
