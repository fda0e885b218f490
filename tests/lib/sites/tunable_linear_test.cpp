#include "sites/tunable_linear.h"

#include <catch2/catch.hpp>

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
