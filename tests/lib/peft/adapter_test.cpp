#include "peft/adapter.h"

#include <catch2/catch.hpp>

#include "sites/tunable_linear.h"

using namespace capaboost;

TEST_CASE("adapter computes y + up(f(down(y)))", "[adapter]") {
  torch::manual_seed(8);
  for (auto activation : {AdapterActivation::kRelu, AdapterActivation::kGelu, AdapterActivation::kSwish}) {
    INFO(to_string(activation));
    Adapter adapter(AdapterOptions(4).activation(activation), "s", 12);
    auto y = torch::randn({3, 12});
    auto z = torch::mm(y, adapter->down.t()) + adapter->down_bias;
    z = activation == AdapterActivation::kRelu   ? torch::relu(z)
        : activation == AdapterActivation::kGelu ? torch::gelu(z)
                                                 : z * torch::sigmoid(z);
    auto expected = y + torch::mm(z, adapter->up.t()) + adapter->up_bias;
    CHECK(torch::allclose(adapter->adapt(y, y), expected, 1e-5, 1e-6));
  }
}

TEST_CASE("adapter initialisation and options", "[adapter]") {
  torch::manual_seed(9);
  Adapter adapter(AdapterOptions(64), "s", 768);
  // N(0, 0.02²) weights, zero biases (the reference code's init).
  CHECK(adapter->down.std().item<double>() == Approx(0.02).epsilon(0.02));
  CHECK(adapter->up.std().item<double>() == Approx(0.02).epsilon(0.02));
  CHECK(adapter->down_bias.abs().sum().item<double>() == 0.0);
  Adapter identity(AdapterOptions(8).zero_init_up(true), "s", 16);
  auto y = torch::randn({2, 16});
  CHECK(torch::equal(identity->adapt(y, y), y));
  Adapter no_residual(AdapterOptions(8).zero_init_up(true).residual(false), "s", 16);
  CHECK(no_residual->adapt(y, y).abs().sum().item<double>() == 0.0);
  CHECK_THROWS_WITH(parse_adapter_activation("tanh"), Catch::Contains("relu"));
}

TEST_CASE("an adapter is not a linear update: merging it is refused", "[adapter]") {
  TunableLinear site(8, 8);
  site->attach(std::make_shared<AdapterImpl>(AdapterOptions(2), "s", 8));
  CHECK_THROWS_WITH(site->merge(), Catch::Contains("cannot be merged"));
  CHECK_THROWS_WITH(site->attach(std::make_shared<AdapterImpl>(AdapterOptions(2), "s", 8)),
                    Catch::Contains("already carries"));
}
