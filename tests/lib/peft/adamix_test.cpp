#include "peft/adamix.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "lib/train/tiny_classifier.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

using namespace capaboost;

TEST_CASE("AdaMix routes one expert pair per training call and averages the experts for inference", "[adamix]") {
  torch::manual_seed(61);
  AdaMix mix(AdaMixOptions(3).experts(4).share_up(false).activation(AdapterActivation::kRelu), "s", 6);
  const auto y = torch::randn({5, 6});
  const auto adapter = [&](const torch::Tensor& down, const torch::Tensor& down_bias, const torch::Tensor& up,
                           const torch::Tensor& up_bias) {
    return y + torch::mm(torch::relu(torch::mm(y, down.t()) + down_bias), up.t()) + up_bias;
  };
  torch::NoGradGuard no_grad;
  mix->down_bias.copy_(torch::randn({4, 3}));
  mix->up_bias.copy_(torch::randn({4, 6}));
  mix->train();
  std::set<std::pair<int, int>> routes;
  for (int call = 0; call < 80; ++call) {
    const auto out = mix->adapt(y, y);
    int found = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        if (torch::allclose(out, adapter(mix->down[i], mix->down_bias[i], mix->up[j], mix->up_bias[j]), 1e-5, 1e-6)) {
          routes.insert({i, j});
          ++found;
        }
      }
    }
    CHECK(found == 1);  // exactly one (down, up) pair
  }
  CHECK(routes.size() >= 12);  // 80 uniform draws over 16 pairs leave few unseen (P(< 12 seen) < 1e-3)
  mix->eval();
  const auto merged = adapter(mix->down.mean(0), mix->down_bias.mean(0), mix->up.mean(0), mix->up_bias.mean(0));
  CHECK(torch::allclose(mix->adapt(y, y), merged, 1e-5, 1e-6));
  // Stored: every expert; effective: the one merged adapter.
  const auto count = mix->parameter_count();
  CHECK(count.dense == 4 * (3 * 6 + 3) + 4 * (6 * 3 + 6));
  CHECK(count.effective == (3 * 6 + 3) + (6 * 3 + 6));
  AdaMix shared(AdaMixOptions(3).experts(4), "s", 6);
  CHECK(shared->up.size(0) == 1);
  CHECK(shared->parameter_count().dense == 4 * (3 * 6 + 3) + (6 * 3 + 6));
}

TEST_CASE("AdaMix's consistency term is the symmetric KL between two routed passes", "[adamix]") {
  const MethodSpec& method = find_method("adamix");
  for (const int64_t experts : {1, 4}) {
    INFO(experts << " experts");
    torch::manual_seed(62);
    auto fresh = testing::tiny_classifier();
    const auto config = resolve_or_throw(method.parameters, {{"bottleneck", 4}, {"experts", experts}}, "method adamix");
    method.attach(*fresh, config);
    const auto hooks = method.training_hooks(*fresh, config);
    Batch batch;
    batch.inputs["input_ids"] = torch::randint(3, 30, {6, 5});
    batch.inputs["attention_mask"] = torch::ones({6, 5}, torch::kLong);
    batch.examples = 6;
    fresh->eval();  // no dropout: with one expert both passes agree exactly
    for (auto& tuner : find_tuners(*fresh)) tuner.second->train();
    {
      torch::NoGradGuard no_grad;
      for (auto& tuner : find_tuners(*fresh)) {
        for (auto& parameter : tuner.second->parameters()) parameter.normal_(0.0, 0.5);
      }
      // A head of unit-scale weights, so that different routes move the logits visibly.
      for (auto& parameter : fresh->classifier->parameters()) parameter.normal_(0.0, 1.0);
    }
    // Several draws: with 4 experts two passes share a route with probability 1/4 each time.
    double largest = 0;
    for (int draw = 0; draw < 8; ++draw) {
      const auto outputs = fresh->forward_batch(batch);  // (6, 2)
      const double term = hooks->regularization_loss(*fresh, batch, outputs).item<double>();
      CHECK(term >= -1e-7);
      largest = std::max(largest, term);
    }
    if (experts == 1) {
      CHECK(largest == Approx(0.0).margin(1e-7));
    } else {
      CHECK(largest > 1e-5);
    }
  }
}
