#include "models/deberta_v2_config.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "models/deberta_v2.h"
#include "support/temp_dir.h"
#include "lib/models/config_file_support.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

using capaboost::testing::write_config;

namespace {

// The fields of microsoft/deberta-v3-base's published config.json, as a user's download holds them
// (pos_att_type as the '|'-separated string that file uses).
nlohmann::json deberta_v3_base_config() {
  return {{"model_type", "deberta-v2"},
          {"attention_probs_dropout_prob", 0.1},
          {"hidden_act", "gelu"},
          {"hidden_dropout_prob", 0.1},
          {"hidden_size", 768},
          {"initializer_range", 0.02},
          {"intermediate_size", 3072},
          {"max_position_embeddings", 512},
          {"relative_attention", true},
          {"position_buckets", 256},
          {"norm_rel_ebd", "layer_norm"},
          {"share_att_key", true},
          {"pos_att_type", "p2c|c2p"},
          {"layer_norm_eps", 1e-7},
          {"max_relative_positions", -1},
          {"position_biased_input", false},
          {"num_attention_heads", 12},
          {"num_hidden_layers", 12},
          {"type_vocab_size", 0},
          {"vocab_size", 128100}};
}

int64_t parameter_count(torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace

TEST_CASE("deberta-v3-base's config.json reads as DeBERTaV3-base: 183,831,552 encoder parameters",
          "[models][deberta][config]") {
  TempDir dir;
  const auto options = load_deberta_v2_config(write_config(dir, deberta_v3_base_config()));
  CHECK(options.relative_attention());
  CHECK(options.position_buckets() == 256);
  CHECK(options.share_att_key());
  CHECK(options.norm_rel_ebd());
  CHECK_FALSE(options.position_biased_input());
  CHECK(options.has_c2p());
  CHECK(options.has_p2c());
  CHECK(options.type_vocab_size() == 0);
  CHECK(options.layer_norm_eps() == 1e-7);
  // Embeddings 128,100 × 768 + LayerNorm, 12 layers × 7,087,872, 512 relative embeddings + LayerNorm.
  DebertaV2Model model(options);
  CHECK(parameter_count(*model) == 128100 * 768 + 2 * 768 + 12 * 7087872 + 512 * 768 + 2 * 768);
}

TEST_CASE("DeBERTa config.json: transformers' fall-backs for absent fields, and a round trip",
          "[models][deberta][config]") {
  TempDir dir;
  auto minimal = deberta_v3_base_config();
  for (const char* field : {"relative_attention", "position_biased_input", "share_att_key", "pos_att_type",
                            "norm_rel_ebd", "position_buckets"}) {
    minimal.erase(field);
  }
  // DebertaV2Config's own defaults: DeBERTa-v1 style absolute positions, no relative terms.
  const auto fallback = load_deberta_v2_config(write_config(dir, minimal));
  CHECK_FALSE(fallback.relative_attention());
  CHECK(fallback.position_biased_input());
  CHECK_FALSE(fallback.share_att_key());
  CHECK(fallback.pos_att_type().empty());
  CHECK_FALSE(fallback.norm_rel_ebd());

  const auto options = load_deberta_v2_config(write_config(dir, deberta_v3_base_config())).num_labels(3).label_names({"a", "b", "c"});
  const auto json = deberta_v2_config_json(options, "DebertaV2ForSequenceClassification");
  CHECK(json["model_type"] == "deberta-v2");
  const auto back = load_deberta_v2_config(write_config(dir, json));
  CHECK(deberta_v2_config_json(back, "DebertaV2ForSequenceClassification") == json);
}

TEST_CASE("DeBERTa config.json: errors name the file and the field", "[models][deberta][config]") {
  TempDir dir;
  const auto failing = [&](const char* field, nlohmann::json value, const char* message) {
    auto json = deberta_v3_base_config();
    json[field] = std::move(value);
    const auto path = write_config(dir, json);
    INFO(field);
    CHECK_THROWS_WITH(load_deberta_v2_config(path), Contains(path) && Contains(field) && Contains(message));
  };
  failing("pos_att_type", "p2c|x2y", "x2y");
  failing("pos_att_type", 3, "must be a list or a '|'-separated string");
  failing("hidden_act", "swish", "swish");
  failing("attention_head_size", 32, "× heads must equal hidden_size");
  // 2^62 × 12 heads overflowed int64_t: UBSan's signed integer overflow in make fuzz's sanitized build.
  failing("attention_head_size", int64_t{1} << 62, "× heads must equal hidden_size");
  auto missing = deberta_v3_base_config();
  missing.erase("hidden_size");
  const auto path = write_config(dir, missing);
  CHECK_THROWS_WITH(load_deberta_v2_config(path), Contains(path) && Contains("hidden_size"));
}
