#include "peft/propetl_lora.h"

#include <catch2/catch.hpp>

#include <set>

#include "lib/peft/few_step_training.h"
#include "lib/train/tiny_classifier.h"
#include "measure/parameter_count.h"
#include "models/roberta.h"
#include "peft/learned_mask.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "train/trainable_selection.h"

using namespace capaboost;

namespace {

RobertaForSequenceClassification two_layer_classifier() {
  torch::manual_seed(31);
  return testing::tiny_deterministic_classifier(2);
}

std::map<std::string, std::shared_ptr<ProPetlLoraImpl>> attached(torch::nn::Module& model, const nlohmann::json& config) {
  const MethodSpec& method = find_method("propetl_lora");
  method.attach(model, resolve_or_throw(method.parameters, config, "method propetl_lora"));
  std::map<std::string, std::shared_ptr<ProPetlLoraImpl>> tuners;
  for (const auto& [name, tuner] : find_tuners(model)) tuners[name] = std::dynamic_pointer_cast<ProPetlLoraImpl>(tuner);
  return tuners;
}

}  // namespace

TEST_CASE("ProPETL-LoRA shares one prototype per site kind across layers, with a mask per site", "[propetl][lora]") {
  auto model = two_layer_classifier();
  const auto tuners = attached(*model, {{"rank", 2}, {"alpha", 4}, {"keep_fraction", 0.5}});
  REQUIRE(tuners.size() == 4);
  const auto& q0 = *tuners.at("roberta.encoder.layer.0.attention.self.query.propetl_lora");
  const auto& q1 = *tuners.at("roberta.encoder.layer.1.attention.self.query.propetl_lora");
  const auto& v1 = *tuners.at("roberta.encoder.layer.1.attention.self.value.propetl_lora");
  // One query prototype (registered at layer 0), a different value prototype.
  CHECK(q0.prototype().get() == q1.prototype().get());
  CHECK(q0.prototype().get() != v1.prototype().get());
  CHECK(q0.named_children().contains("prototype"));
  CHECK_FALSE(q1.named_children().contains("prototype"));
  CHECK_FALSE(torch::equal(q0.mask_scores_A, q1.mask_scores_A));
  // Stored: 2 prototypes × r(in + out) + 4 sites × scores of the same size.
  const auto report = count_parameters(*model, model->head_prefixes());
  CHECK(report.tuner_dense == (2 + 4) * 2 * (8 + 8));
  freeze_backbone(*model, model->head_prefixes());
  CHECK(count_parameters(*model, model->head_prefixes()).trainable - report.head == report.tuner_dense);

  // ΔW = (α/r) (B⊙M_B)(A⊙M_A) with layer 1's own masks on the shared factors.
  torch::NoGradGuard no_grad;
  const auto& shared = q0.prototype();
  shared->B.copy_(torch::randn({8, 2}));
  const auto x = torch::randn({3, 8});
  const auto y = torch::randn({3, 8});
  const auto delta =
      torch::mm(shared->B * learned_mask(q1.mask_scores_B, 0.5), shared->A * learned_mask(q1.mask_scores_A, 0.5)) * 2.0;
  CHECK(torch::allclose(tuners.at("roberta.encoder.layer.1.attention.self.query.propetl_lora")->adapt(x, y),
                        y + torch::mm(x, delta.t()), 1e-5, 1e-6));
  CHECK(torch::allclose(*q1.delta_weight(), delta.to(torch::kFloat64), 1e-5, 1e-7));
  CHECK(v1.parameter_count().dense == 2 * 2 * 8);  // a non-owner counts its scores only
}

TEST_CASE("ProPETL-LoRA on all six matrices keeps one prototype per matrix of the layer, the three dense ones apart",
          "[propetl][lora]") {
  // Table 3's placement: query, key, value, attention output, intermediate and output. The last three
  // are all named "…dense"; each is its own kind (and differs in shape where the FFN is wider).
  auto model = two_layer_classifier();
  const auto tuners = attached(*model, {{"rank", 2}, {"alpha", 4}, {"targets", nlohmann::json::array()},
                                        {"target_regex", R"((.*\.)?layer\.[0-9]+\.(attention\.self\.(query|key|value)|)"
                                                         R"(attention\.output\.dense|intermediate\.dense|output\.dense))"}});
  REQUIRE(tuners.size() == 12);
  std::set<const void*> prototypes;
  for (const auto& [name, tuner] : tuners) prototypes.insert(tuner->prototype().get());
  CHECK(prototypes.size() == 6);
  for (const char* kind : {"attention.self.key", "attention.output.dense", "intermediate.dense", "output.dense"}) {
    INFO(kind);
    const auto& layer0 = *tuners.at(std::string("roberta.encoder.layer.0.") + kind + ".propetl_lora");
    const auto& layer1 = *tuners.at(std::string("roberta.encoder.layer.1.") + kind + ".propetl_lora");
    CHECK(layer0.prototype().get() == layer1.prototype().get());
  }
  CHECK(tuners.at("roberta.encoder.layer.0.intermediate.dense.propetl_lora")->prototype().get() !=
        tuners.at("roberta.encoder.layer.0.output.dense.propetl_lora")->prototype().get());
}

TEST_CASE("training ProPETL-LoRA moves the shared factors, every site's scores and the head", "[propetl][lora][train]") {
  auto model = two_layer_classifier();
  attached(*model, {{"rank", 2}, {"keep_fraction", 0.5}});
  select_trainable_parameters(*model, nullptr, model->head_prefixes());
  const auto trained = testing::train_few_steps(model);
  CHECK(trained.last_loss < trained.first_loss - 0.05);
  for (const auto& item : model->named_parameters()) {
    INFO(item.key());
    const bool intended = item.key().find(".propetl_lora.") != std::string::npos || item.key().rfind("classifier.", 0) == 0;
    CHECK(trained.changed.count(item.key()) == (intended ? 1u : 0u));
  }
}
