#include "models/vit_config.h"

#include "checkpoint/config_json.h"

namespace capaboost {

void VitOptions::validate(const std::string& source) const {
  const auto positive = [&](int64_t value, const char* field) {
    TORCH_CHECK(value > 0, source, ": field '", field, "' must be positive, got ", value);
  };
  positive(hidden_size(), "hidden_size");
  positive(num_hidden_layers(), "num_hidden_layers");
  positive(num_attention_heads(), "num_attention_heads");
  positive(intermediate_size(), "intermediate_size");
  positive(image_size(), "image_size");
  positive(patch_size(), "patch_size");
  positive(num_channels(), "num_channels");
  positive(num_labels(), "num_labels");
  TORCH_CHECK(hidden_size() % num_attention_heads() == 0, source, ": hidden_size ", hidden_size(),
              " is not a multiple of num_attention_heads ", num_attention_heads());
  // transformers lays the position table out for (image_size / patch_size)² patches; the remainder of
  // a size that does not divide is cut off by the strided convolution.
  TORCH_CHECK(patch_size() <= image_size(), source, ": patch_size ", patch_size(), " exceeds image_size ",
              image_size());
  for (auto [p, field] : {std::pair<double, const char*>{hidden_dropout_prob(), "hidden_dropout_prob"},
                          {attention_probs_dropout_prob(), "attention_probs_dropout_prob"}}) {
    TORCH_CHECK(p >= 0.0 && p < 1.0, source, ": field '", field, "' must be in [0, 1), got ", p);
  }
  TORCH_CHECK(layer_norm_eps() > 0.0, source, ": field 'layer_norm_eps' must be positive, got ", layer_norm_eps());
  TORCH_CHECK(label_names().empty() || static_cast<int64_t>(label_names().size()) == num_labels(), source, ": ",
              label_names().size(), " label names for num_labels ", num_labels());
}

VitOptions load_vit_config(const std::string& path) {
  const auto config = ConfigJson::load(path);
  if (config.has("model_type")) {
    const auto model_type = config.required<std::string>("model_type");
    TORCH_CHECK(model_type == "vit", path, ": field 'model_type' is '", model_type,
                "'; this loader reads ViT configs (model_type \"vit\")");
  }
  const VitOptions defaults;  // transformers' ViTConfig defaults
  VitOptions options;
  options.hidden_size(config.optional<int64_t>("hidden_size", defaults.hidden_size()))
      .num_hidden_layers(config.optional<int64_t>("num_hidden_layers", defaults.num_hidden_layers()))
      .num_attention_heads(config.optional<int64_t>("num_attention_heads", defaults.num_attention_heads()))
      .intermediate_size(config.optional<int64_t>("intermediate_size", defaults.intermediate_size()))
      .hidden_act(config.parsed("hidden_act", "gelu", parse_activation))
      .hidden_dropout_prob(config.optional<double>("hidden_dropout_prob", defaults.hidden_dropout_prob()))
      .attention_probs_dropout_prob(
          config.optional<double>("attention_probs_dropout_prob", defaults.attention_probs_dropout_prob()))
      .initializer_range(config.optional<double>("initializer_range", defaults.initializer_range()))
      .layer_norm_eps(config.optional<double>("layer_norm_eps", defaults.layer_norm_eps()))
      .image_size(config.optional<int64_t>("image_size", defaults.image_size()))
      .patch_size(config.optional<int64_t>("patch_size", defaults.patch_size()))
      .num_channels(config.optional<int64_t>("num_channels", defaults.num_channels()))
      .qkv_bias(config.optional<bool>("qkv_bias", defaults.qkv_bias()))
      .encoder_stride(config.optional<int64_t>("encoder_stride", defaults.encoder_stride()));
  const ConfigLabels labels = parse_labels(config);
  options.num_labels(labels.num_labels).label_names(labels.names);
  if (config.has("problem_type")) options.problem_type(config.parsed("problem_type", "", parse_problem_type));
  options.validate(path);
  return options;
}

nlohmann::json vit_config_json(const VitOptions& options, const std::string& architecture) {
  nlohmann::json json = {
      {"architectures", nlohmann::json::array({architecture})},
      {"attention_probs_dropout_prob", options.attention_probs_dropout_prob()},
      {"encoder_stride", options.encoder_stride()},
      {"hidden_act", to_string(options.hidden_act())},
      {"hidden_dropout_prob", options.hidden_dropout_prob()},
      {"hidden_size", options.hidden_size()},
      {"image_size", options.image_size()},
      {"initializer_range", options.initializer_range()},
      {"intermediate_size", options.intermediate_size()},
      {"layer_norm_eps", options.layer_norm_eps()},
      {"model_type", "vit"},
      {"num_attention_heads", options.num_attention_heads()},
      {"num_channels", options.num_channels()},
      {"num_hidden_layers", options.num_hidden_layers()},
      {"patch_size", options.patch_size()},
      {"qkv_bias", options.qkv_bias()},
      {"torch_dtype", "float32"},
  };
  write_labels(json, options.num_labels(), options.label_names());
  if (options.problem_type()) json["problem_type"] = to_string(*options.problem_type());
  return json;
}

}  // namespace capaboost
