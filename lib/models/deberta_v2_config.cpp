#include "models/deberta_v2_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "checkpoint/config_json.h"

namespace capaboost {
namespace {

bool lists(const std::vector<std::string>& types, const char* type) {
  return std::find(types.begin(), types.end(), type) != types.end();
}

// pos_att_type is written as a list (["p2c", "c2p"]) or a '|'-separated string ("p2c|c2p").
std::vector<std::string> parse_pos_att_type(const ConfigJson& config) {
  const auto& field = config.json()["pos_att_type"];
  std::vector<std::string> types;
  if (field.is_string()) {
    std::stringstream text(field.get<std::string>());
    for (std::string item; std::getline(text, item, '|');) {
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      std::transform(item.begin(), item.end(), item.begin(), ::tolower);
      if (!item.empty()) types.push_back(item);
    }
  } else if (field.is_array()) {
    for (const auto& item : field) {
      TORCH_CHECK(item.is_string(), config.path(), ": field 'pos_att_type' must list strings, got ", field.dump());
      types.push_back(item.get<std::string>());
    }
  } else {
    TORCH_CHECK(false, config.path(), ": field 'pos_att_type' must be a list or a '|'-separated string, got ",
                field.dump());
  }
  for (const auto& type : types) {
    TORCH_CHECK(type == "c2p" || type == "p2c", config.path(), ": field 'pos_att_type' has '", type,
                "'; the supported terms are c2p and p2c");
  }
  return types;
}

}  // namespace

bool DebertaV2Options::has_c2p() const { return lists(pos_att_type(), "c2p"); }
bool DebertaV2Options::has_p2c() const { return lists(pos_att_type(), "p2c"); }

void DebertaV2Options::validate(const std::string& source) const {
  const auto positive = [&](int64_t value, const char* field) {
    TORCH_CHECK(value > 0, source, ": field '", field, "' must be positive, got ", value);
  };
  positive(vocab_size(), "vocab_size");
  positive(hidden_size(), "hidden_size");
  positive(num_hidden_layers(), "num_hidden_layers");
  positive(num_attention_heads(), "num_attention_heads");
  positive(intermediate_size(), "intermediate_size");
  positive(max_position_embeddings(), "max_position_embeddings");
  positive(num_labels(), "num_labels");
  positive(effective_embedding_size(), "embedding_size");
  TORCH_CHECK(type_vocab_size() >= 0, source, ": field 'type_vocab_size' must be >= 0, got ", type_vocab_size());
  TORCH_CHECK(hidden_size() % num_attention_heads() == 0, source, ": hidden_size ", hidden_size(),
              " is not a multiple of num_attention_heads ", num_attention_heads());
  TORCH_CHECK(pad_token_id() >= 0 && pad_token_id() < vocab_size(), source, ": field 'pad_token_id' ",
              pad_token_id(), " is outside the vocabulary of ", vocab_size());
  TORCH_CHECK(conv_kernel_size() >= 0 && conv_groups() > 0 && hidden_size() % conv_groups() == 0, source,
              ": conv_kernel_size must be >= 0 and conv_groups divide hidden_size, got ", conv_kernel_size(), " and ",
              conv_groups());
  for (auto [p, field] : {std::pair<double, const char*>{hidden_dropout_prob(), "hidden_dropout_prob"},
                          {attention_probs_dropout_prob(), "attention_probs_dropout_prob"},
                          {pooler_dropout(), "pooler_dropout"},
                          {cls_dropout().value_or(hidden_dropout_prob()), "cls_dropout"}}) {
    TORCH_CHECK(p >= 0.0 && p < 1.0, source, ": field '", field, "' must be in [0, 1), got ", p);
  }
  TORCH_CHECK(layer_norm_eps() > 0.0, source, ": field 'layer_norm_eps' must be positive, got ", layer_norm_eps());
  TORCH_CHECK(label_names().empty() || static_cast<int64_t>(label_names().size()) == num_labels(), source, ": ",
              label_names().size(), " label names for num_labels ", num_labels());
}

DebertaV2Options load_deberta_v2_config(const std::string& path) {
  const auto config = ConfigJson::load(path);
  if (config.has("model_type")) {
    const auto model_type = config.required<std::string>("model_type");
    TORCH_CHECK(model_type == "deberta-v2", path, ": field 'model_type' is '", model_type,
                "'; this loader reads DeBERTa-v2/v3 configs (model_type \"deberta-v2\")");
  }
  DebertaV2Options options;
  options.vocab_size(config.required<int64_t>("vocab_size"))
      .hidden_size(config.required<int64_t>("hidden_size"))
      .num_hidden_layers(config.required<int64_t>("num_hidden_layers"))
      .num_attention_heads(config.required<int64_t>("num_attention_heads"))
      .intermediate_size(config.required<int64_t>("intermediate_size"))
      .max_position_embeddings(config.required<int64_t>("max_position_embeddings"));
  // Fall-backs: what transformers 4.30.2 uses when the field is absent.
  options.hidden_act(config.parsed("hidden_act", "gelu", parse_activation))
      .hidden_dropout_prob(config.optional<double>("hidden_dropout_prob", 0.1))
      .attention_probs_dropout_prob(config.optional<double>("attention_probs_dropout_prob", 0.1))
      .type_vocab_size(config.optional<int64_t>("type_vocab_size", 0))
      .initializer_range(config.optional<double>("initializer_range", 0.02))
      .layer_norm_eps(config.optional<double>("layer_norm_eps", 1e-7))
      .pad_token_id(config.optional<int64_t>("pad_token_id", 0))
      .position_biased_input(config.optional<bool>("position_biased_input", true))
      .relative_attention(config.optional<bool>("relative_attention", false))
      .max_relative_positions(config.optional<int64_t>("max_relative_positions", -1))
      .position_buckets(config.optional<int64_t>("position_buckets", -1))
      .share_att_key(config.optional<bool>("share_att_key", false))
      .conv_kernel_size(config.optional<int64_t>("conv_kernel_size", 0))
      .conv_groups(config.optional<int64_t>("conv_groups", 1))
      .conv_act(config.parsed("conv_act", "tanh", parse_activation))
      .pooler_hidden_act(config.parsed("pooler_hidden_act", "gelu", parse_activation))
      .pooler_dropout(config.optional<double>("pooler_dropout", 0.0));
  options.pos_att_type(config.has("pos_att_type") ? parse_pos_att_type(config) : std::vector<std::string>{});
  if (config.has("embedding_size")) options.embedding_size(config.required<int64_t>("embedding_size"));
  if (config.has("cls_dropout")) options.cls_dropout(config.required<double>("cls_dropout"));
  // norm_rel_ebd: '|'-separated flags; "layer_norm" among them normalises the relative embeddings.
  const auto norm = config.optional<std::string>("norm_rel_ebd", "none");
  std::stringstream flags(norm);
  bool layer_norm = false;
  for (std::string flag; std::getline(flags, flag, '|');) {
    flag.erase(0, flag.find_first_not_of(' '));
    flag.erase(flag.find_last_not_of(' ') + 1);
    std::transform(flag.begin(), flag.end(), flag.begin(), ::tolower);
    TORCH_CHECK(flag == "layer_norm" || flag == "none", path, ": field 'norm_rel_ebd' has '", flag,
                "'; the supported values are layer_norm and none");
    layer_norm |= flag == "layer_norm";
  }
  options.norm_rel_ebd(layer_norm);
  if (config.has("pooler_hidden_size")) {
    const auto pooler = config.required<int64_t>("pooler_hidden_size");
    TORCH_CHECK(pooler == options.hidden_size(), path, ": field 'pooler_hidden_size' is ", pooler,
                "; the classification head needs it equal to hidden_size ", options.hidden_size());
  }
  if (config.has("attention_head_size")) {
    const auto head = config.required<int64_t>("attention_head_size");
    // Both factors come from the file, so their product may overflow (undefined behaviour): checked.
    int64_t product = 0;
    TORCH_CHECK(!__builtin_mul_overflow(head, options.num_attention_heads(), &product) &&
                    product == options.hidden_size(),
                path,
                ": field 'attention_head_size' ", head, " × heads must equal hidden_size (other head sizes are not supported)");
  }
  const ConfigLabels labels = parse_labels(config);
  options.num_labels(labels.num_labels).label_names(labels.names);
  if (config.has("problem_type")) options.problem_type(config.parsed("problem_type", "", parse_problem_type));
  options.validate(path);
  return options;
}

nlohmann::json deberta_v2_config_json(const DebertaV2Options& options, const std::string& architecture) {
  nlohmann::json json = {
      {"architectures", nlohmann::json::array({architecture})},
      {"attention_probs_dropout_prob", options.attention_probs_dropout_prob()},
      {"hidden_act", to_string(options.hidden_act())},
      {"hidden_dropout_prob", options.hidden_dropout_prob()},
      {"hidden_size", options.hidden_size()},
      {"initializer_range", options.initializer_range()},
      {"intermediate_size", options.intermediate_size()},
      {"layer_norm_eps", options.layer_norm_eps()},
      {"max_position_embeddings", options.max_position_embeddings()},
      {"max_relative_positions", options.max_relative_positions()},
      {"model_type", "deberta-v2"},
      {"norm_rel_ebd", options.norm_rel_ebd() ? "layer_norm" : "none"},
      {"num_attention_heads", options.num_attention_heads()},
      {"num_hidden_layers", options.num_hidden_layers()},
      {"pad_token_id", options.pad_token_id()},
      {"pooler_dropout", options.pooler_dropout()},
      {"pooler_hidden_act", to_string(options.pooler_hidden_act())},
      {"pooler_hidden_size", options.hidden_size()},
      {"pos_att_type", options.pos_att_type()},
      {"position_biased_input", options.position_biased_input()},
      {"position_buckets", options.position_buckets()},
      {"relative_attention", options.relative_attention()},
      {"share_att_key", options.share_att_key()},
      {"torch_dtype", "float32"},
      {"type_vocab_size", options.type_vocab_size()},
      {"vocab_size", options.vocab_size()},
  };
  write_labels(json, options.num_labels(), options.label_names());
  if (options.embedding_size()) json["embedding_size"] = *options.embedding_size();
  if (options.cls_dropout()) json["cls_dropout"] = *options.cls_dropout();
  if (options.conv_kernel_size() > 0) {
    json["conv_kernel_size"] = options.conv_kernel_size();
    json["conv_groups"] = options.conv_groups();
    json["conv_act"] = to_string(options.conv_act());
  }
  if (options.problem_type()) json["problem_type"] = to_string(*options.problem_type());
  return json;
}

}  // namespace capaboost
