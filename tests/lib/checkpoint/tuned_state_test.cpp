#include "checkpoint/tuned_state.h"

#include <catch2/catch.hpp>

#include "lib/peft/few_step_training.h"
#include "lib/peft/tuned_classifier.h"
#include "sites/site_registry.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

RobertaForSequenceClassification tuned_classifier(const std::string& method_name, const nlohmann::json& config) {
  return testing::tuned_classifier(method_name, config, /*seed=*/41);
}

}  // namespace

TEST_CASE("the tuned state holds the tuners and the head, and nothing of the backbone", "[tuned_state]") {
  auto model = tuned_classifier("lora", {{"rank", 2}, {"branches", 2}});
  const auto state = tuned_state(*model, model->head_prefixes());
  std::set<std::string> names;
  for (const auto& [name, tensor] : state) names.insert(name);
  std::set<std::string> expected;
  for (const auto& name : tuner_tensor_names(*model)) expected.insert(name);
  for (const auto& item : model->named_parameters()) {
    if (item.key().rfind("classifier.", 0) == 0) expected.insert(item.key());
  }
  CHECK(names == expected);
  CHECK(names.count("roberta.encoder.layer.1.attention.self.value.lora.B") == 1);
  CHECK(names.count("roberta.encoder.layer.0.attention.self.query.weight") == 0);
  // Copies: training the model afterwards leaves the state as it was.
  const torch::Tensor before = state.at("classifier.out_proj.weight").clone();
  testing::train_few_steps(model);
  CHECK(torch::equal(state.at("classifier.out_proj.weight"), before));
}

TEST_CASE("a saved tuned state rebuilds the trained model on a fresh backbone", "[tuned_state]") {
  const nlohmann::json config = {{"rank", 2}, {"branches", 2}, {"density", 0.5}};
  auto trained = tuned_classifier("lora", config);
  testing::train_few_steps(trained);
  capaboost::testing::TempDir dir;
  save_safetensors(dir.file("state.safetensors"), tuned_state(*trained, trained->head_prefixes()));

  auto rebuilt = tuned_classifier("lora", config);
  const auto ids = torch::randint(3, 30, {4, 7});  // (B, T)
  REQUIRE_FALSE(torch::allclose(testing::eval_logits(rebuilt, ids), testing::eval_logits(trained, ids)));
  load_tuned_state(*rebuilt, SafetensorsFile(dir.file("state.safetensors")));
  CHECK(torch::equal(testing::eval_logits(rebuilt, ids), testing::eval_logits(trained, ids)));
}

TEST_CASE("a tuned state refuses a model of another method or rank, naming the file", "[tuned_state]") {
  auto trained = tuned_classifier("lora", {{"rank", 2}});
  capaboost::testing::TempDir dir;
  const std::string path = dir.file("lora_r2.safetensors");
  save_safetensors(path, tuned_state(*trained, trained->head_prefixes()));

  auto other_rank = tuned_classifier("lora", {{"rank", 4}});
  CHECK_THROWS_WITH(load_tuned_state(*other_rank, SafetensorsFile(path)),
                    Catch::Contains(path) && Catch::Contains("lora.A") && Catch::Contains("shape"));
  auto other_method = tuned_classifier("adapter", {{"bottleneck", 4}});
  CHECK_THROWS_WITH(load_tuned_state(*other_method, SafetensorsFile(path)),
                    Catch::Contains(path) && Catch::Contains("another method") && Catch::Contains("adapter"));
}
