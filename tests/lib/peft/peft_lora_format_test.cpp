#include "peft/peft_lora_format.h"

#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/peft/few_step_training.h"
#include "lib/peft/tuned_classifier.h"
#include "peft/lora.h"
#include "sites/site_registry.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

RobertaForSequenceClassification classifier_with(const std::string& method_name, const nlohmann::json& config) {
  return testing::tuned_classifier(method_name, config, /*seed=*/51);
}

// CapaBoost-LoRA, d = 2 branches of rank 2 at density 0.5, trained for a few steps.
const nlohmann::json kCapaBoostLora = {{"rank", 2}, {"alpha", 3}, {"branches", 2}, {"density", 0.5}};

}  // namespace

TEST_CASE("CapaBoost-LoRA exports as a plain LoRA of rank d*r with alpha*d, in PEFT's names", "[peft_export]") {
  auto trained = classifier_with("lora", kCapaBoostLora);
  testing::train_few_steps(trained);
  const PeftLoraAdapter adapter = peft_lora_adapter(*trained, trained->head_prefixes(), "tiny-base");

  CHECK(adapter.config.at("peft_type") == "LORA");
  CHECK(adapter.config.at("task_type") == "SEQ_CLS");
  CHECK(adapter.config.at("r") == 4);
  CHECK(adapter.config.at("lora_alpha") == 6);  // (6 / 4) = (3 / 2): the run's scale
  CHECK(adapter.config.at("modules_to_save") == nlohmann::json::array({"classifier"}));
  CHECK(adapter.config.at("base_model_name_or_path") == "tiny-base");
  CHECK(adapter.config.at("target_modules").size() == 4);  // query and value of two layers
  const std::string query0 = "base_model.model.roberta.encoder.layer.0.attention.self.query";
  REQUIRE(adapter.tensors.count(query0 + ".lora_A.weight") == 1);
  CHECK(adapter.tensors.at(query0 + ".lora_A.weight").sizes() == torch::IntArrayRef({4, 8}));   // (d·r, in)
  CHECK(adapter.tensors.at(query0 + ".lora_B.weight").sizes() == torch::IntArrayRef({8, 4}));   // (out, d·r)
  CHECK(adapter.tensors.count("base_model.model.classifier.out_proj.weight") == 1);
  CHECK(adapter.tensors.size() == 4 * 2 + 4);  // two factors per site, the head's two linears

  // The masks are applied: each branch's block of A keeps about half its entries.
  const auto a = adapter.tensors.at(query0 + ".lora_A.weight");
  const double zeros = (a == 0).sum().item<double>() / static_cast<double>(a.numel());
  CHECK(zeros > 0.3);
  CHECK(zeros < 0.7);
}

TEST_CASE("a fresh backbone with the exported adapter computes the trained CapaBoost-LoRA model", "[peft_export]") {
  auto trained = classifier_with("lora", kCapaBoostLora);
  testing::train_few_steps(trained);
  capaboost::testing::TempDir dir;
  save_peft_lora_adapter(peft_lora_adapter(*trained, trained->head_prefixes(), "tiny-base"), dir.path().string());

  auto reloaded = classifier_with("", {});
  const auto ids = torch::randint(3, 30, {5, 9});  // (B, T)
  REQUIRE_FALSE(torch::allclose(testing::eval_logits(reloaded, ids), testing::eval_logits(trained, ids), 1e-3, 1e-3));
  const auto sites = load_peft_lora_adapter(*reloaded, dir.path().string());
  CHECK(sites.size() == 4);
  for (const auto& [name, tuner] : find_tuners(*reloaded)) {
    auto* lora = dynamic_cast<LoraImpl*>(tuner.get());
    REQUIRE(lora != nullptr);
    CHECK(lora->options.rank() == 4);
    CHECK(lora->options.capaboost().branches() == 1);
  }
  CHECK(torch::allclose(testing::eval_logits(reloaded, ids), testing::eval_logits(trained, ids), 1e-5, 1e-6));
}

TEST_CASE("PEFT LoRA export and import refuse what they cannot represent, naming the file", "[peft_export]") {
  auto adapter_model = classifier_with("adapter", {{"bottleneck", 4}});
  CHECK_THROWS_WITH(peft_lora_adapter(*adapter_model, adapter_model->head_prefixes(), "b"),
                    Catch::Contains("adapter") && Catch::Contains("only LoRA"));
  auto bare = classifier_with("", {});
  CHECK_THROWS_WITH(peft_lora_adapter(*bare, bare->head_prefixes(), "b"), Catch::Contains("no LoRA"));

  auto trained = classifier_with("lora", kCapaBoostLora);
  capaboost::testing::TempDir dir;
  // Settings of PEFT's LoraConfig under which the same tensors compute something else (rsLoRA's scale,
  // aLoRA's activation after invocation tokens, sites left out, a PiSSA-changed base).
  const std::vector<std::pair<std::string, nlohmann::json>> refused = {
      {"use_rslora", true}, {"alora_invocation_tokens", {5, 6}}, {"exclude_modules", {"query"}},
      {"init_lora_weights", "pissa_niter_4"}};
  PeftLoraAdapter adapter;
  for (const auto& [key, value] : refused) {
    INFO(key);
    adapter = peft_lora_adapter(*trained, trained->head_prefixes(), "b");
    adapter.config[key] = value;
    save_peft_lora_adapter(adapter, dir.path().string());
    auto fresh = classifier_with("", {});
    CHECK_THROWS_WITH(load_peft_lora_adapter(*fresh, dir.path().string()),
                      Catch::Contains("adapter_config.json") && Catch::Contains(key));
  }

  adapter = peft_lora_adapter(*trained, trained->head_prefixes(), "b");
  adapter.tensors.erase("base_model.model.roberta.encoder.layer.1.attention.self.value.lora_B.weight");
  save_peft_lora_adapter(adapter, dir.path().string());
  auto fresh2 = classifier_with("", {});
  CHECK_THROWS_WITH(load_peft_lora_adapter(*fresh2, dir.path().string()),
                    Catch::Contains("adapter_model.safetensors") && Catch::Contains("layer.1.attention.self.value.lora_B"));
}

TEST_CASE("PEFT adapter fields of the wrong type or size are errors naming the file and the field", "[peft_export]") {
  // Found by the peft_adapter fuzz target (tests/fuzz/peft_adapter_fuzz.cpp): fields of another JSON type
  // escaped as nlohmann's type_error, an invalid target_modules regex as std::regex_error, and a large r
  // made LoRA allocate its factors before the file's tensors were compared with it.
  auto trained = classifier_with("lora", kCapaBoostLora);
  capaboost::testing::TempDir dir;
  const std::vector<std::tuple<std::string, nlohmann::json, std::string>> bad = {
      {"r", "4", "'r' must be an integer"},
      {"r", int64_t(1) << 40, "where r = 1099511627776"},
      {"lora_alpha", nlohmann::json::array(), "'lora_alpha' must be a number"},
      {"lora_dropout", "0.1", "'lora_dropout' must be a number"},
      {"target_modules", nlohmann::json::array({"query", 7}), "'target_modules' must be a list of names"},
      {"target_modules", "(query", "not a valid regex"},
      {"modules_to_save", nlohmann::json::array({nullptr}), "'modules_to_save' must be a list of module names"},
  };
  for (const auto& [key, value, message] : bad) {
    INFO(key << " = " << value.dump());
    PeftLoraAdapter adapter = peft_lora_adapter(*trained, trained->head_prefixes(), "b");
    adapter.config[key] = value;
    save_peft_lora_adapter(adapter, dir.path().string());
    auto fresh = classifier_with("", {});
    CHECK_THROWS_WITH(load_peft_lora_adapter(*fresh, dir.path().string()),
                      Catch::Contains("adapter_") && Catch::Contains(message));
  }
}
