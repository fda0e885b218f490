#include "sites/site_registry.h"

#include <catch2/catch.hpp>

#include "peft/lora.h"

using namespace capaboost;

namespace {

// Two "layers" with attention-like site names, and a head.
struct TinyModel : torch::nn::Module {
  TinyModel() {
    for (int i = 0; i < 2; ++i) {
      auto layer = register_module("layer" + std::to_string(i), std::make_shared<torch::nn::Module>());
      layer->register_module("query", TunableLinear(8, 8));
      layer->register_module("key", TunableLinear(8, 8));
      layer->register_module("value", TunableLinear(8, 8));
      layers.push_back(layer);
    }
    head = register_module("classifier", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (auto& layer : layers) {
      for (const char* name : {"query", "key", "value"}) {
        x = torch::tanh(layer->named_children()[name]->as<TunableLinearImpl>()->forward(x));
      }
    }
    return head->forward(x);
  }
  std::vector<std::shared_ptr<torch::nn::Module>> layers;
  torch::nn::Linear head{nullptr};
};

TunerFactory lora_factory(int64_t d, MaskKind kind) {
  return [=](const std::string& site, const TunableLinearImpl& layer) {
    auto boost = CapaBoostOptions().branches(d).mask(MaskOptions().kind(kind).density(0.5).seed(3));
    return std::make_shared<LoraImpl>(LoraOptions(2).capaboost(boost), site, layer.options.in_features(),
                                      layer.options.out_features());
  };
}

}  // namespace

TEST_CASE("sites are found by name and selected by suffix or regex", "[sites]") {
  TinyModel model;
  const auto sites = find_sites(model);
  REQUIRE(sites.size() == 6);
  CHECK(sites[0].first == "layer0.query");
  CHECK(SiteSelector{{"query"}}.matches("layer0.query"));
  CHECK_FALSE(SiteSelector{{"query"}}.matches("layer0.subquery"));
  CHECK(SiteSelector{{}, std::string("layer1\\.(key|value)")}.matches("layer1.value"));
  CHECK_FALSE(SiteSelector{{}, std::string("layer1\\.(key|value)")}.matches("layer1.value.extra"));

  const auto attached =
      attach_tuners(model, SiteSelector{{"query", "value"}}, lora_factory(1, MaskKind::kNone));
  CHECK(attached == std::vector<std::string>{"layer0.query", "layer0.value", "layer1.query", "layer1.value"});
  // Tuner parameters extend the site's name.
  CHECK(model.named_parameters().contains("layer0.query.lora.A"));
  CHECK_THROWS_WITH(attach_tuners(model, SiteSelector{{"qurey"}}, lora_factory(1, MaskKind::kNone)),
                    Catch::Contains("qurey") && Catch::Contains("layer0.query"));
}

TEST_CASE("training changes only tuner and head parameters", "[sites][training]") {
  torch::manual_seed(10);
  TinyModel model;
  attach_tuners(model, SiteSelector{{"query", "value"}}, lora_factory(2, MaskKind::kDiff));
  freeze_backbone(model, {"classifier."});
  std::map<std::string, torch::Tensor> before;
  for (const auto& p : model.named_parameters()) before[p.key()] = p.value().clone();

  std::vector<torch::Tensor> trainable;
  for (auto& p : model.parameters())
    if (p.requires_grad()) trainable.push_back(p);
  torch::optim::AdamW optimizer(trainable, torch::optim::AdamWOptions(1e-2));
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    model.forward(torch::randn({4, 8})).pow(2).sum().backward();
    optimizer.step();
  }
  for (const auto& p : model.named_parameters()) {
    const bool tuned = p.key().find(".lora.") != std::string::npos || p.key().rfind("classifier.", 0) == 0;
    INFO(p.key());
    CHECK(torch::equal(before[p.key()], p.value()) != tuned);
  }
}

TEST_CASE("entries masked out in every branch get exactly zero gradient", "[sites][capaboost]") {
  torch::manual_seed(11);
  auto boost = CapaBoostOptions().branches(2).mask(MaskOptions().kind(MaskKind::kDiff).density(0.3).seed(9));
  Lora lora(LoraOptions(4).capaboost(boost), "site", 16, 16);
  {
    torch::NoGradGuard g;
    lora->B.normal_();
  }
  lora->adapt(torch::randn({6, 16}), torch::zeros({6, 16})).pow(2).sum().backward();
  BranchStack masks(boost, "site");
  for (auto [name, param] : {std::pair{std::string("A"), lora->A}, std::pair{std::string("B"), lora->B}}) {
    INFO(name);
    auto seen = masks.branch_mask(name, 0, param.sizes()) | masks.branch_mask(name, 1, param.sizes());
    auto unseen = seen.logical_not();
    REQUIRE(unseen.sum().item<int64_t>() > 0);
    CHECK(param.grad().masked_select(unseen).abs().max().item<float>() == 0.0f);
    CHECK(param.grad().masked_select(seen).abs().gt(0).all().item<bool>());
  }
}
