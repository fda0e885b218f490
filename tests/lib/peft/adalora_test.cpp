#include "peft/adalora.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("AdaLoRA computes y + (alpha/r) x (P * lambda)^T Q^T and starts at zero", "[adalora]") {
  torch::manual_seed(4);
  AdaLora tuner(AdaLoraOptions(6).target_rank(2).alpha(12), "s", 10, 7);
  const auto x = torch::randn({3, 10});
  const auto y = torch::randn({3, 7});
  CHECK(torch::equal(tuner->adapt(x, y), y));  // λ = 0: ΔW = 0
  CHECK(tuner->delta_weight()->abs().max().item<double>() == 0.0);
  torch::NoGradGuard no_grad;
  tuner->lora_E.copy_(torch::randn({6, 1}));
  const auto lambda = tuner->lora_E.view(-1);
  // ΔW = (α/r) Q diag(λ) P, column by column of the SVD form.
  const auto delta = torch::mm(tuner->lora_B * lambda, tuner->lora_A) * (12.0 / 6.0);  // (7, 10)
  CHECK(torch::allclose(tuner->adapt(x, y), y + torch::mm(x, delta.t()), 1e-5, 1e-6));
  CHECK(torch::allclose(*tuner->delta_weight(), delta.to(torch::kFloat64), 1e-5, 1e-7));
  CHECK(tuner->active_rank() == 6);
  tuner->lora_E[2][0] = 0;
  CHECK(tuner->active_rank() == 5);
}

TEST_CASE("AdaLoRA counts its initial entries as dense and the target budget as effective", "[adalora][params]") {
  AdaLora tuner(AdaLoraOptions(48).target_rank(32), "s", 768, 768);
  const auto count = tuner->parameter_count();
  CHECK(count.dense == 48 * (768 + 768 + 1));
  CHECK(count.effective == 32 * (768 + 768 + 1));
  const auto flops = tuner->flops_per_token();
  CHECK(flops.executed == 2.0 * 48 * 768 * 2 + 2.0 * 768);
  CHECK(flops.sparse_ideal == 2.0 * 32 * 768 * 2 + 2.0 * 768);
  CHECK_THROWS_WITH(AdaLora(AdaLoraOptions(8).target_rank(9), "q", 4, 4), Catch::Contains("site 'q'"));
}
