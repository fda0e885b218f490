// The extension point after a residual block's LayerNorm: with a tuner T, a block computes
// LN(s + T(LN(s))), s = h + x, with its own LayerNorm both times (adapter-transformers' Pfeiffer
// configuration; the live oracle check is tests/lib/peft/adapters_parity_live_test.cpp). Checked here
// against that formula computed by hand, and through the `adapter` method's `placement` as a run attaches
// it: which blocks it selects, what it counts and the FLOPs it adds.

#include "sites/residual_site.h"

#include <catch2/catch.hpp>

#include "lib/train/tiny_classifier.h"
#include "measure/flop_count.h"
#include "measure/parameter_count.h"
#include "models/transformer_blocks.h"
#include "peft/adapter.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

using namespace capaboost;
using Catch::Contains;

namespace {

/// The `adapter` method attached to `model` as a run with `config` would.
std::vector<std::string> attach_adapter_method(torch::nn::Module& model, const nlohmann::json& config) {
  const MethodSpec& spec = find_method("adapter");
  return spec.attach(model, resolve_or_throw(spec.parameters, config, "method adapter"));
}

}  // namespace

TEST_CASE("a tuner after a block's LayerNorm reads the normalised output and joins the sum before it is normalised again",
          "[sites][residual_site]") {
  torch::manual_seed(5);
  ResidualOutput block(ResidualOutputOptions(12, 8).dropout(0.0));
  {  // a LayerNorm that is not the identity map, so that using it twice is visible
    torch::NoGradGuard no_grad;
    block->layer_norm->weight.normal_(1.0, 0.3);
    block->layer_norm->bias.normal_(0.0, 0.3);
  }
  const auto x = torch::randn({2, 5, 12});        // (B, T, in)
  const auto residual = torch::randn({2, 5, 8});  // (B, T, C)
  const auto ln = [&](const torch::Tensor& t) {
    return torch::layer_norm(t, {8}, block->layer_norm->weight, block->layer_norm->bias, block->layer_norm->options.eps());
  };
  const auto h = torch::nn::functional::linear(x, block->dense->weight, block->dense->bias);  // (B, T, C)
  const auto plain = block->forward(x, residual);
  CHECK(torch::allclose(plain, ln(h + residual), 1e-5, 1e-6));

  auto adapter = std::make_shared<AdapterImpl>(AdapterOptions(3).residual(false).init_std(0.5), "block", 8);
  block->attach(adapter);
  CHECK_THROWS_WITH(block->attach(std::make_shared<AdapterImpl>(AdapterOptions(3), "block", 8)),
                    Contains("already carries"));
  const auto sum = h + residual;
  const auto normed = ln(sum);
  const auto correction =
      torch::nn::functional::linear(torch::relu(torch::nn::functional::linear(normed, adapter->down, adapter->down_bias)),
                                    adapter->up, adapter->up_bias);
  for (const bool training : {true, false}) {
    INFO("training " << training);
    block->train(training);
    const auto tuned = block->forward(x, residual);
    CHECK(torch::allclose(tuned, ln(sum + correction), 1e-5, 1e-6));
    CHECK((tuned - plain).abs().max().item<double>() > 1e-2);  // the adapter changes the output
  }
  // Gradients reach the adapter's four tensors through both LayerNorm applications.
  block->train();
  block->forward(x, residual).pow(2).sum().backward();
  for (const auto& tensor : {adapter->down, adapter->down_bias, adapter->up, adapter->up_bias}) {
    REQUIRE(tensor.grad().defined());
    CHECK(tensor.grad().abs().max().item<double>() > 0);
  }
  block->detach();
  CHECK(torch::allclose(block->forward(x, residual), plain, 1e-6, 1e-7));
}

TEST_CASE("placement: after_layer_norm selects blocks by their projection, counts as the output placement and adds the site's FLOPs",
          "[sites][residual_site][adapter]") {
  constexpr int64_t kWidth = 8, kBottleneck = 2;
  auto on_output = capaboost::testing::tiny_classifier();  // one layer, width 8
  auto after_norm = capaboost::testing::tiny_classifier();
  CHECK(find_residual_sites(*after_norm).size() == 2);  // the attention and feed-forward outputs
  const nlohmann::json config = {{"bottleneck", kBottleneck}};
  CHECK(attach_adapter_method(*on_output, config) == std::vector<std::string>{"roberta.encoder.layer.0.output.dense"});
  nlohmann::json after = config;
  after["placement"] = "after_layer_norm";
  CHECK(attach_adapter_method(*after_norm, after) == std::vector<std::string>{"roberta.encoder.layer.0.output"});

  // Same tensors, same shapes, under the block's name instead of its projection's.
  freeze_backbone(*after_norm, {"classifier."});
  const auto parameters = after_norm->named_parameters();
  for (const char* name : {"down", "down_bias", "up", "up_bias"}) {
    INFO(name);
    const auto tensor = parameters.find(std::string("roberta.encoder.layer.0.output.adapter.") + name);
    REQUIRE(tensor != nullptr);
    CHECK(tensor->requires_grad());
    CHECK(tensor->sizes() == on_output->named_parameters()[std::string("roberta.encoder.layer.0.output.dense.adapter.") + name].sizes());
  }
  const auto names = tuner_tensor_names(*after_norm);
  CHECK(std::count(names.begin(), names.end(), "roberta.encoder.layer.0.output.adapter.up") == 1);
  CHECK(count_parameters(*after_norm, {"classifier."}).tuner_dense ==
        count_parameters(*on_output, {"classifier."}).tuner_dense);

  // FLOPs per token: two GEMMs (4·C·bn) and the adapter's elementwise work (2·bn + 2·C); on the output
  // its residual add (C); after the LayerNorm the site's add and second LayerNorm (8·C) instead.
  const auto tuner_flops = [](torch::nn::Module& model) {
    double executed = 0;
    for (const SiteFlops& site : site_flops(model)) executed += site.tuner.executed;
    return executed;
  };
  const double shared = 4.0 * kWidth * kBottleneck + 2.0 * kBottleneck + 2.0 * kWidth;
  CHECK(tuner_flops(*on_output) == Approx(shared + kWidth));
  CHECK(tuner_flops(*after_norm) == Approx(shared + 8.0 * kWidth));
  const auto sites = site_flops(*after_norm);
  CHECK(sites.back().site == "roberta.encoder.layer.0.output");
  CHECK(sites.back().base == 0.0);

  // Houlsby's targets put one after each of the layer's two blocks; the classifier runs through them.
  auto both = capaboost::testing::tiny_classifier();
  nlohmann::json houlsby = after;
  houlsby["targets"] = {"output.dense"};
  houlsby["target_regex"] = "";
  CHECK(attach_adapter_method(*both, houlsby) ==
        std::vector<std::string>{"roberta.encoder.layer.0.attention.output", "roberta.encoder.layer.0.output"});
  const auto logits = both->forward(torch::randint(3, 30, {2, 5}), torch::ones({2, 5}, torch::kLong)).logits;
  CHECK(logits.sizes() == torch::IntArrayRef({2, 2}));

  // A target naming no block's projection is refused, naming what the blocks are selected by.
  nlohmann::json typo = after;
  typo["targets"] = {"query"};
  typo["target_regex"] = "";
  auto model = capaboost::testing::tiny_classifier();
  CHECK_THROWS_WITH(attach_adapter_method(*model, typo),
                    Contains("no residual site matches") && Contains("roberta.encoder.layer.0.attention.output.dense"));
  nlohmann::json unknown = config;
  unknown["placement"] = "after_norm";
  CHECK_THROWS_WITH(attach_adapter_method(*model, unknown), Contains("after_layer_norm"));
}
