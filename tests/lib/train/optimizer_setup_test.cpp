#include "train/optimizer_setup.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <set>

#include "lib/train/tiny_classifier.h"
#include "models/roberta.h"

using namespace capaboost;
using Catch::Contains;

TEST_CASE("biases and LayerNorm parameters get no weight decay", "[train][optimizer]") {
  auto model = testing::tiny_classifier();
  const DecayGroups groups = decay_groups(*model);
  const std::set<std::string> no_decay(groups.no_decay_names.begin(), groups.no_decay_names.end());
  const std::set<std::string> decay(groups.decay_names.begin(), groups.decay_names.end());
  CHECK(no_decay.count("roberta.embeddings.LayerNorm.weight") == 1);
  CHECK(no_decay.count("roberta.encoder.layer.0.output.LayerNorm.weight") == 1);
  CHECK(no_decay.count("roberta.encoder.layer.0.attention.self.query.bias") == 1);
  CHECK(no_decay.count("classifier.out_proj.bias") == 1);
  CHECK(decay.count("roberta.embeddings.word_embeddings.weight") == 1);
  CHECK(decay.count("roberta.encoder.layer.0.attention.self.query.weight") == 1);
  CHECK(decay.count("classifier.dense.weight") == 1);
  CHECK(groups.decay.size() + groups.no_decay.size() == model->parameters().size());
}

TEST_CASE("AdamW decays weights but not biases and follows set_learning_rate", "[train][optimizer]") {
  auto model = testing::tiny_classifier();
  auto optimizer = make_adamw(*model, AdamWSettings().lr(0.1).weight_decay(0.5));
  set_learning_rate(*optimizer, 0.2);
  const auto& weight = model->classifier->dense->weight;
  const auto& bias = model->classifier->dense->bias;
  {
    torch::NoGradGuard no_grad;
    bias.fill_(1.0);
  }
  const torch::Tensor weight_before = weight.detach().clone();
  const torch::Tensor bias_before = bias.detach().clone();
  // Zero gradients: Adam's step is 0, so only decoupled decay moves a parameter, p ← p·(1 − lr·wd).
  for (auto& parameter : model->parameters()) parameter.mutable_grad() = torch::zeros_like(parameter);
  optimizer->step();
  CHECK(torch::allclose(weight, weight_before * (1.0 - 0.2 * 0.5), 1e-6, 1e-7));
  CHECK(torch::equal(bias, bias_before));
}

TEST_CASE("an optimizer over a frozen model is refused", "[train][optimizer]") {
  auto model = testing::tiny_classifier();
  for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
  CHECK_THROWS_WITH(make_adamw(*model, AdamWSettings()), Contains("no trainable parameters"));
}

TEST_CASE("parameters with a learning rate of their own get their group and follow the schedule in proportion",
          "[train][optimizer]") {
  auto model = testing::tiny_classifier();
  const auto own = [](const std::string& name) -> std::optional<double> {
    if (name.rfind("classifier.", 0) == 0) return 3e-2;
    return std::nullopt;
  };
  auto optimizer = make_adamw(*model, AdamWSettings().lr(1e-4).weight_decay(0.1).lr_of(own));
  // decay × {1e-4, 3e-2} and no-decay × {1e-4, 3e-2}: four groups, each holding what it should.
  const auto rates = group_learning_rates(*optimizer);
  REQUIRE(rates.size() == 4);
  CHECK(std::count(rates.begin(), rates.end(), 1e-4) == 2);
  CHECK(std::count(rates.begin(), rates.end(), 3e-2) == 2);
  size_t classifier_parameters = 0;
  for (size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] == 3e-2) classifier_parameters += optimizer->param_groups()[i].params().size();
  }
  CHECK(classifier_parameters == model->classifier->parameters().size());
  // The schedule halves the run's rate: every group halves, and the run's own groups get it exactly.
  scale_learning_rates(*optimizer, rates, 1e-4, 5e-5);
  for (size_t i = 0; i < rates.size(); ++i) {
    const double lr = static_cast<torch::optim::AdamWOptions&>(optimizer->param_groups()[i].options()).lr();
    if (rates[i] == 1e-4) {
      CHECK(lr == 5e-5);
    } else {
      CHECK(lr == Approx(1.5e-2));
    }
  }
  CHECK_THROWS_WITH(scale_learning_rates(*optimizer, {1e-4}, 1e-4, 5e-5), Contains("1 base rates for 4"));
}
