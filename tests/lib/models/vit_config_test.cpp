#include "models/vit_config.h"

#include <catch2/catch.hpp>

#include <fstream>

#include "checkpoint/config_json.h"
#include "support/temp_dir.h"

using namespace capaboost;

TEST_CASE("a ViT config.json reads with transformers' defaults and round-trips", "[models][vit][config]") {
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("sparse.json")) << R"({"model_type": "vit", "image_size": 28, "patch_size": 4,
                                               "num_channels": 1, "id2label": {"0": "a", "1": "b", "2": "c"}})";
  const VitOptions sparse = load_vit_config(dir.file("sparse.json"));
  CHECK(sparse.hidden_size() == 768);  // ViTConfig's defaults where the file says nothing
  CHECK(sparse.layer_norm_eps() == 1e-12);
  CHECK(sparse.hidden_dropout_prob() == 0.0);
  CHECK(sparse.qkv_bias());
  CHECK(sparse.num_patches() == 49);
  CHECK(sparse.num_labels() == 3);
  CHECK(sparse.label_names() == std::vector<std::string>{"a", "b", "c"});

  VitOptions without_bias = sparse;
  save_config_json(dir.file("round.json"), vit_config_json(without_bias.qkv_bias(false), "ViTForImageClassification"));
  const VitOptions round = load_vit_config(dir.file("round.json"));
  CHECK(round.image_size() == 28);
  CHECK(round.num_channels() == 1);
  CHECK_FALSE(round.qkv_bias());
  CHECK(round.label_names() == sparse.label_names());
}

TEST_CASE("a ViT config.json that no model can be built from names the file and the field", "[models][vit][config]") {
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("roberta.json")) << R"({"model_type": "roberta"})";
  CHECK_THROWS_WITH(load_vit_config(dir.file("roberta.json")), Catch::Contains("roberta.json") && Catch::Contains("model_type"));
  std::ofstream(dir.file("heads.json")) << R"({"model_type": "vit", "hidden_size": 30, "num_attention_heads": 4})";
  CHECK_THROWS_WITH(load_vit_config(dir.file("heads.json")), Catch::Contains("heads.json") && Catch::Contains("multiple"));
  std::ofstream(dir.file("act.json")) << R"({"model_type": "vit", "hidden_act": "swish"})";
  CHECK_THROWS_WITH(load_vit_config(dir.file("act.json")), Catch::Contains("act.json") && Catch::Contains("hidden_act"));
}
