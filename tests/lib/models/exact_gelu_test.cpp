#include "models/exact_gelu.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "models/activation.h"

using namespace capaboost;

namespace {

// x·Φ(x) and its derivative Φ(x) + x·φ(x) in float64, Φ through erfc (no cancellation in the tail).
torch::Tensor reference_gelu(const torch::Tensor& x) {
  const auto xd = x.to(torch::kFloat64);
  return xd * 0.5 * torch::erfc(-xd / std::sqrt(2.0));
}

torch::Tensor reference_gelu_derivative(const torch::Tensor& x) {
  const auto xd = x.to(torch::kFloat64);
  return 0.5 * torch::erfc(-xd / std::sqrt(2.0)) + xd * torch::exp(-0.5 * xd * xd) / std::sqrt(2.0 * M_PI);
}

}  // namespace

TEST_CASE("exact_gelu equals x·Φ(x) to float rounding over the whole range", "[models][gelu]") {
  // Every float step of 1/1024 from −16 to 16: both tails, zero, and the cut where e^{−x²/2} underflows.
  const auto x = torch::arange(-16384, 16385, torch::kFloat32) / 1024.0;
  const auto y = exact_gelu(x);
  const auto reference = reference_gelu(x);
  const auto error = (y.to(torch::kFloat64) - reference).abs();
  CHECK(error.max().item<double>() < 4e-7);
  // Relative accuracy too, where transformers' 1 + erf(x/√2) loses it: down to x = −5 (values ~ −1.4e-6).
  const auto moderate = x.abs() <= 5.0;
  const auto relative = error.masked_select(moderate) / reference.abs().masked_select(moderate).clamp_min(1e-30);
  CHECK(relative.max().item<double>() < 3e-6);
  // ATen's float GELU is the oracle of the same rounding class: the two agree to its absolute error.
  CHECK(torch::allclose(y, torch::gelu(x), /*rtol=*/0, /*atol=*/1e-6));
  CHECK(y[16384].item<float>() == 0.0f);
}

TEST_CASE("exact_gelu's gradient is dy·(Φ(x) + x·φ(x))", "[models][gelu]") {
  torch::manual_seed(3);
  // (B, T, F) as a feed-forward block makes it, values spread over both tails.
  const auto x = (4.0 * torch::randn({3, 7, 50})).requires_grad_();
  const auto probe = torch::randn({3, 7, 50});
  const auto grad = torch::autograd::grad({exact_gelu(x)}, {x}, {probe})[0];
  const auto expected = probe.to(torch::kFloat64) * reference_gelu_derivative(x.detach());
  CHECK((grad.to(torch::kFloat64) - expected).abs().max().item<double>() < 2e-6);
  // Finite differences of the float64 reference at a few points, against the kernel's derivative.
  const auto points = torch::tensor({-6.0f, -2.5f, -0.3f, 0.0f, 0.7f, 3.0f}).requires_grad_();
  const auto slope = torch::autograd::grad({exact_gelu(points)}, {points}, {torch::ones({6})})[0];
  const double h = 1e-5;
  const auto p = points.detach().to(torch::kFloat64);
  const auto numeric = (reference_gelu(p + h) - reference_gelu(p - h)) / (2 * h);
  CHECK(torch::allclose(slope.to(torch::kFloat64), numeric, /*rtol=*/0, /*atol=*/1e-6));
}

TEST_CASE("exact_gelu takes any layout and keeps NaN and infinity", "[models][gelu]") {
  torch::manual_seed(5);
  const auto x = torch::randn({40, 30});
  CHECK(torch::equal(exact_gelu(x.t()), exact_gelu(x).t()));  // a transposed view: same values
  const float inf = std::numeric_limits<float>::infinity();
  const auto special = exact_gelu(torch::tensor({std::nanf(""), inf, -100.0f, 100.0f}));
  CHECK(std::isnan(special[0].item<float>()));
  CHECK(special[1].item<float>() == inf);
  CHECK(special[2].item<float>() == 0.0f);
  CHECK(special[3].item<float>() == 100.0f);
  CHECK(exact_gelu(torch::empty({0, 5})).sizes() == torch::IntArrayRef({0, 5}));
}

TEST_CASE("the gelu activation runs exact_gelu on float32 CPU tensors and ATen's elsewhere", "[models][gelu]") {
  const auto x = torch::randn({4, 8}).requires_grad_();
  const auto y = activate(Activation::kGelu, x);
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name().find("ExactGelu") != std::string::npos);
  const auto xd = torch::randn({4, 8}, torch::kFloat64).requires_grad_();
  CHECK(activate(Activation::kGelu, xd).grad_fn()->name().find("GeluBackward") != std::string::npos);
  CHECK_FALSE(exact_gelu_applies(xd));
  CHECK_THROWS_WITH(exact_gelu(xd), Catch::Contains("needs a float32 CPU tensor"));
}
