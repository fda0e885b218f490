#include "models/bert_config.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "support/temp_dir.h"
#include "lib/models/config_file_support.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

using capaboost::testing::write_config;

namespace {

nlohmann::json tiny_config() {
  return {{"architectures", {"RobertaForSequenceClassification"}},
          {"model_type", "roberta"},
          {"vocab_size", 1000},
          {"hidden_size", 32},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"intermediate_size", 64},
          {"max_position_embeddings", 40},
          {"type_vocab_size", 1},
          {"layer_norm_eps", 1e-5},
          {"some_future_field", {{"nested", true}}}};
}

}  // namespace

TEST_CASE("RoBERTa config.json: fields, transformers defaults, unknown fields ignored", "[roberta][config]") {
  TempDir dir;
  const auto options = load_roberta_config(write_config(dir, tiny_config()));
  CHECK(options.vocab_size() == 1000);
  CHECK(options.hidden_size() == 32);
  CHECK(options.num_hidden_layers() == 2);
  CHECK(options.num_attention_heads() == 4);
  CHECK(options.intermediate_size() == 64);
  CHECK(options.max_position_embeddings() == 40);
  CHECK(options.type_vocab_size() == 1);
  CHECK(options.layer_norm_eps() == 1e-5);
  // Absent fields take transformers' defaults.
  CHECK(options.hidden_act() == Activation::kGelu);
  CHECK(options.pad_token_id() == 1);
  CHECK(options.num_labels() == 2);
  CHECK(options.hidden_dropout_prob() == 0.1);
  CHECK(options.effective_classifier_dropout() == 0.1);
  CHECK_FALSE(options.problem_type().has_value());

  auto json = tiny_config();
  json.erase("layer_norm_eps");
  CHECK(load_roberta_config(write_config(dir, json)).layer_norm_eps() == 1e-12);  // RobertaConfig's default
}

TEST_CASE("RoBERTa config.json: num_labels from id2label, else num_labels; problem type; activations",
          "[roberta][config]") {
  TempDir dir;
  auto json = tiny_config();
  json["id2label"] = {{"0", "neg"}, {"1", "neu"}, {"2", "pos"}};
  auto options = load_roberta_config(write_config(dir, json));
  CHECK(options.num_labels() == 3);
  CHECK(options.label_names() == std::vector<std::string>{"neg", "neu", "pos"});

  json = tiny_config();
  json["num_labels"] = 1;
  json["problem_type"] = "regression";
  json["hidden_act"] = "gelu_new";
  json["classifier_dropout"] = 0.3;
  options = load_roberta_config(write_config(dir, json));
  CHECK(options.num_labels() == 1);
  CHECK(options.problem_type() == ProblemType::kRegression);
  CHECK(options.hidden_act() == Activation::kGeluNew);
  CHECK(options.effective_classifier_dropout() == 0.3);
  json["hidden_act"] = "relu";
  CHECK(load_roberta_config(write_config(dir, json)).hidden_act() == Activation::kRelu);
}

TEST_CASE("RoBERTa config.json: position_embedding_type read and written back", "[roberta][config]") {
  TempDir dir;
  CHECK(load_roberta_config(write_config(dir, tiny_config())).position_embedding_type() ==
        PositionEmbeddingType::kAbsolute);
  for (const auto type : {PositionEmbeddingType::kAbsolute, PositionEmbeddingType::kRelativeKey,
                          PositionEmbeddingType::kRelativeKeyQuery}) {
    auto json = tiny_config();
    json["position_embedding_type"] = to_string(type);
    const auto options = load_roberta_config(write_config(dir, json));
    CHECK(options.position_embedding_type() == type);
    const auto written = bert_config_json(options, "RobertaForMaskedLM");
    CHECK(written["position_embedding_type"] == to_string(type));
    CHECK(load_roberta_config(write_config(dir, written)).position_embedding_type() == type);
  }
}

TEST_CASE("RoBERTa config.json: errors name the file and the field", "[roberta][config]") {
  TempDir dir;
  for (const char* field : {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                            "intermediate_size", "max_position_embeddings", "type_vocab_size"}) {
    auto json = tiny_config();
    json.erase(field);
    const auto path = write_config(dir, json);
    CHECK_THROWS_WITH(load_roberta_config(path),
                      Contains(path) && Contains(std::string("'") + field + "' is missing"));
  }
  const auto failing = [&](const char* field, nlohmann::json value, const char* message) {
    auto json = tiny_config();
    json[field] = std::move(value);
    const auto path = write_config(dir, json);
    INFO(field);
    CHECK_THROWS_WITH(load_roberta_config(path), Contains(path) && Contains(field) && Contains(message));
  };
  failing("hidden_act", "swish", "unsupported activation 'swish'");
  failing("model_type", "bert", "'bert'");
  failing("position_embedding_type", "relative", "absolute, relative_key or relative_key_query");
  failing("hidden_size", "32", "must be an integer");
  failing("num_attention_heads", 5, "not a multiple");
  failing("problem_type", "ranking", "'ranking'");
  failing("id2label", nlohmann::json({{"0", "a"}, {"2", "b"}}), "id2label");
  auto json = tiny_config();
  json["id2label"] = {{"0", "a"}, {"1", "b"}};
  json["num_labels"] = 3;
  const auto path = write_config(dir, json);
  CHECK_THROWS_WITH(load_roberta_config(path),
                    Contains(path) && Contains("'num_labels' is 3") && Contains("2 labels"));
}

TEST_CASE("RoBERTa config.json written back reads back to the same options", "[roberta][config]") {
  TempDir dir;
  const auto options = roberta_options()
                           .vocab_size(77)
                           .hidden_size(16)
                           .num_hidden_layers(3)
                           .num_attention_heads(2)
                           .intermediate_size(20)
                           .hidden_act(Activation::kRelu)
                           .max_position_embeddings(30)
                           .type_vocab_size(2)
                           .layer_norm_eps(1e-7)
                           .num_labels(3)
                           .label_names({"a", "b", "c"})
                           .classifier_dropout(0.25)
                           .problem_type(ProblemType::kSingleLabelClassification);
  const auto json = bert_config_json(options, "RobertaForSequenceClassification");
  CHECK(json["architectures"] == nlohmann::json::array({"RobertaForSequenceClassification"}));
  CHECK(json["model_type"] == "roberta");
  CHECK(json["label2id"]["b"] == 1);
  const auto back = load_roberta_config(write_config(dir, json));
  CHECK(back.vocab_size() == 77);
  CHECK(back.hidden_size() == 16);
  CHECK(back.num_hidden_layers() == 3);
  CHECK(back.num_attention_heads() == 2);
  CHECK(back.intermediate_size() == 20);
  CHECK(back.hidden_act() == Activation::kRelu);
  CHECK(back.max_position_embeddings() == 30);
  CHECK(back.type_vocab_size() == 2);
  CHECK(back.layer_norm_eps() == 1e-7);
  CHECK(back.label_names() == options.label_names());
  CHECK(back.effective_classifier_dropout() == 0.25);
  CHECK(back.problem_type() == ProblemType::kSingleLabelClassification);
}
