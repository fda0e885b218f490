// One `placement` for every adapter-like method (peft/adapter_placement.h): with the same weights,
// ProPETL's shared adapter (its masks keeping every entry) and AdaMix (one expert) compute exactly what
// the plain adapter computes — on the projection's output and after the block's LayerNorm, where the
// adapter itself is checked against adapter-transformers' Pfeiffer configuration
// (tests/lib/peft/adapters_parity_live_test.cpp).

#include "peft/adapter_placement.h"

#include <catch2/catch.hpp>

#include "lib/train/tiny_classifier.h"
#include "peft/adamix.h"
#include "peft/adapter.h"
#include "peft/method_registry.h"
#include "peft/propetl_adapter.h"
#include "sites/site_registry.h"

using namespace capaboost;

namespace {

std::vector<std::string> attach_method(torch::nn::Module& model, const std::string& name, nlohmann::json config) {
  const MethodSpec& spec = find_method(name);
  return spec.attach(model, resolve_or_throw(spec.parameters, config, "method " + name));
}

template <typename Tuner>
std::shared_ptr<Tuner> only_tuner(torch::nn::Module& model) {
  const auto tuners = find_tuners(model);
  REQUIRE(tuners.size() == 1);
  auto tuner = std::dynamic_pointer_cast<Tuner>(tuners.front().second);
  REQUIRE(tuner);
  return tuner;
}

}  // namespace

TEST_CASE("ProPETL's adapter and AdaMix take the adapter's placement and compute the adapter there",
          "[peft][adapter][placement]") {
  // GELU, not ReLU: a ReLU adapter whose units are all below zero is a constant, the same at both places.
  torch::manual_seed(7);
  const auto ids = torch::randint(3, 30, {2, 5});
  const auto mask = torch::ones({2, 5}, torch::kLong);
  std::map<std::string, torch::Tensor> by_placement;
  for (const std::string placement : {"output", "after_layer_norm"}) {
    INFO(placement);
    const nlohmann::json shape = {{"bottleneck", 3}, {"activation", "gelu"}, {"placement", placement}};
    torch::manual_seed(9);
    auto plain = testing::tiny_classifier();
    torch::manual_seed(9);
    auto propetl = testing::tiny_classifier();
    torch::manual_seed(9);
    auto adamix = testing::tiny_classifier();
    const auto sites = attach_method(*plain, "adapter", shape);
    nlohmann::json propetl_config = shape;
    propetl_config["keep_fraction"] = 1.0;
    CHECK(attach_method(*propetl, "propetl_adapter", propetl_config) == sites);
    nlohmann::json adamix_config = shape;
    adamix_config["experts"] = 1;
    CHECK(attach_method(*adamix, "adamix", adamix_config) == sites);
    CHECK(sites == std::vector<std::string>{placement == "output" ? "roberta.encoder.layer.0.output.dense"
                                                                  : "roberta.encoder.layer.0.output"});

    const auto adapter = only_tuner<AdapterImpl>(*plain);
    const auto shared = only_tuner<ProPetlAdapterImpl>(*propetl)->prototype();
    const auto mixture = only_tuner<AdaMixImpl>(*adamix);
    {
      torch::NoGradGuard no_grad;
      for (auto& parameter : adapter->parameters()) parameter.normal_(0.0, 0.5);
      shared->down.copy_(adapter->down);
      shared->down_bias.copy_(adapter->down_bias);
      shared->up.copy_(adapter->up);
      shared->up_bias.copy_(adapter->up_bias);
      mixture->down[0].copy_(adapter->down);
      mixture->down_bias[0].copy_(adapter->down_bias);
      mixture->up[0].copy_(adapter->up);
      mixture->up_bias[0].copy_(adapter->up_bias);
    }
    for (auto* model : {&plain, &propetl, &adamix}) {
      // A head of larger weights (the same in all three), so that the adapter moves the logits visibly, but
      // not so large that its tanh saturates and hides every difference.
      torch::manual_seed(11);
      torch::NoGradGuard no_grad;
      for (auto& parameter : (*model)->classifier->parameters()) parameter.normal_(0.0, 0.3);
      (*model)->eval();
    }
    const auto expected = plain->forward(ids, mask).logits;  // (2, 2)
    CHECK(torch::allclose(propetl->forward(ids, mask).logits, expected, 1e-6, 1e-7));
    CHECK(torch::allclose(adamix->forward(ids, mask).logits, expected, 1e-6, 1e-7));
    by_placement[placement] = expected;
  }
  // The two placements are two different models (so the equalities above are not those of an idle adapter).
  CHECK((by_placement["output"] - by_placement["after_layer_norm"]).abs().max().item<double>() > 1e-3);
}
