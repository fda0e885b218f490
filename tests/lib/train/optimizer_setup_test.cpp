#include "train/optimizer_setup.h"

#include <catch2/catch.hpp>
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
