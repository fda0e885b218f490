#include "runtime/onednn_matmul.h"

#include <catch2/catch.hpp>
#include <torch/version.h>

using namespace capaboost::runtime;

TEST_CASE("oneDNN's matmul path is there wherever the system's oneDNN headers are the ones compiled against",
          "[runtime][onednn]") {
#if TORCH_VERSION_MAJOR < 2
  CHECK(onednn_matmul_available());  // Debian's LibTorch 1.13 brings no oneDNN headers of its own
#else
  if (!onednn_matmul_available()) WARN("this LibTorch bundles oneDNN 3 headers: the oneDNN path is left out");
#endif
}

TEST_CASE("oneDNN's batched matmul reads strided head views and scales, as torch::matmul computes",
          "[runtime][onednn]") {
  if (!onednn_matmul_available()) return;  // the test above says why
  torch::manual_seed(9);
  // (B, T, C) projections split into heads by view + permute: q (B, H, T, d), kᵀ (B, H, d, T).
  const int64_t B = 3, T = 7, H = 2, d = 5;
  const auto q_proj = torch::randn({B, T, H * d});
  const auto k_proj = torch::randn({B, T, H * d});
  const auto q = q_proj.view({B, T, H, d}).permute({0, 2, 1, 3});
  const auto kt = k_proj.view({B, T, H, d}).permute({0, 2, 3, 1});
  auto scores = torch::empty({B, H, T, T});
  REQUIRE(onednn_batched_matmul(q, kt, scores, 0.5));
  CHECK(torch::allclose(scores, torch::matmul(q, kt) * 0.5, 1e-5, 1e-5));

  // A transposed batch operand (softmax-gradient ᵀ · q) and a plain 2-D product.
  const auto probs = torch::rand({B, H, T, T});
  auto grad = torch::empty({B, H, T, d});
  REQUIRE(onednn_batched_matmul(probs.transpose(-1, -2), q, grad, 1.0));
  CHECK(torch::allclose(grad, torch::matmul(probs.transpose(-1, -2), q), 1e-5, 1e-5));
  const auto a = torch::randn({4, 6}), b = torch::randn({9, 6}).t();
  auto c = torch::empty({4, 9});
  REQUIRE(onednn_batched_matmul(a, b, c, 2.0));
  CHECK(torch::allclose(c, torch::mm(a, b) * 2.0, 1e-5, 1e-5));
}

TEST_CASE("oneDNN's batched matmul declines what it is not for, leaving the output alone", "[runtime][onednn]") {
  const auto a = torch::randn({2, 3, 4}, torch::kFloat64), b = torch::randn({2, 4, 5}, torch::kFloat64);
  auto out = torch::full({2, 3, 5}, 7.0, torch::kFloat64);
  CHECK_FALSE(onednn_batched_matmul(a, b, out, 1.0));
  CHECK(torch::all(out == 7.0).item<bool>());
}
