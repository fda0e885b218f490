#include "sites/tunable_linear.h"

#include <catch2/catch.hpp>

#include "runtime/onednn_matmul.h"
#include "runtime/precision.h"

using namespace capaboost;

namespace {

// What autocast itself computes: both operands rounded to bf16, the product in bf16.
torch::Tensor bf16_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::nn::functional::linear(x.to(torch::kBFloat16), w.to(torch::kBFloat16), b.to(torch::kBFloat16));
}

}  // namespace

TEST_CASE("a frozen weight's bf16 copy is reused and follows every change to the weight", "[sites][precision]") {
  torch::manual_seed(5);
  TunableLinear layer(16, 8);
  layer->weight.set_requires_grad(false);
  const auto x = torch::randn({3, 16});  // (B, in)
  const runtime::PrecisionScope scope(runtime::Precision::kBf16);
  const auto first = layer->forward(x);
  CHECK(first.scalar_type() == torch::kBFloat16);
  CHECK(torch::equal(first, bf16_linear(x, layer->weight, layer->bias)));
  {
    torch::NoGradGuard no_grad;
    layer->weight.add_(1.0);  // in place, as loading a checkpoint or merging a tuner does
  }
  CHECK(torch::equal(layer->forward(x), bf16_linear(x, layer->weight, layer->bias)));
  layer->weight = torch::randn({8, 16});  // replaced by another tensor
  CHECK(torch::equal(layer->forward(x), bf16_linear(x, layer->weight, layer->bias)));
}

TEST_CASE("a trained weight is left to autocast: its gradient reaches the fp32 weight", "[sites][precision]") {
  torch::manual_seed(6);
  TunableLinear layer(16, 8);
  const auto x = torch::randn({3, 16});
  torch::Tensor y;
  {
    const runtime::PrecisionScope scope(runtime::Precision::kBf16);
    y = layer->forward(x);
  }
  y.to(torch::kFloat).sum().backward();
  REQUIRE(layer->weight.grad().defined());
  CHECK(layer->weight.grad().scalar_type() == torch::kFloat);
  // d(sum y)/dW = 1ᵀx for every row, up to bf16 rounding of x.
  const auto want = x.sum(0).expand({8, 16});
  CHECK(torch::allclose(layer->weight.grad(), want, 2e-2, 2e-2));
}

TEST_CASE("on oneDNN the layer computes nn::functional::linear's values and gradients", "[sites][onednn]") {
  if (!runtime::onednn_matmul_available()) return;  // tests/lib/runtime/onednn_matmul_test.cpp says why
  struct Restore {
    ~Restore() { runtime::set_onednn_linear(false); }
  } restore;
  runtime::set_onednn_linear(true);
  REQUIRE(runtime::onednn_linear_enabled());
  torch::manual_seed(7);
  for (const bool with_bias : {true, false}) {
    for (const bool weight_trains : {true, false}) {
      DYNAMIC_SECTION("bias " << with_bias << ", weight trains " << weight_trains) {
        TunableLinear layer(TunableLinearOptions(12, 5).bias(with_bias));
        layer->weight.set_requires_grad(weight_trains);
        // A strided input (a transposed view) of shape (B, T, in), as a permuted projection would be.
        const auto x = torch::randn({3, 12, 4}).transpose(1, 2).requires_grad_(true);  // (3, 4, 12)
        const auto y = layer->forward(x);                                              // (3, 4, 5)
        const auto upstream = torch::randn({3, 4, 5});
        (y * upstream).sum().backward();

        const auto x_ref = x.detach().clone().requires_grad_(true);
        const auto w_ref = layer->weight.detach().clone().requires_grad_(true);
        const auto b_ref = with_bias ? layer->bias.detach().clone().requires_grad_(true) : torch::Tensor();
        const auto y_ref = torch::nn::functional::linear(x_ref, w_ref, b_ref);
        (y_ref * upstream).sum().backward();

        CHECK(torch::allclose(y, y_ref, 1e-5, 1e-5));
        CHECK(torch::allclose(x.grad(), x_ref.grad(), 1e-5, 1e-5));
        CHECK(layer->weight.grad().defined() == weight_trains);
        if (weight_trains) CHECK(torch::allclose(layer->weight.grad(), w_ref.grad(), 1e-5, 1e-5));
        if (with_bias) CHECK(torch::allclose(layer->bias.grad(), b_ref.grad(), 1e-5, 1e-5));
      }
    }
  }
  SECTION("an empty batch gives an empty output") {
    TunableLinear layer(12, 5);
    CHECK(layer->forward(torch::randn({0, 12})).sizes() == torch::IntArrayRef({0, 5}));
  }
}
