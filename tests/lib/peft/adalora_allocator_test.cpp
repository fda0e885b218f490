#include "peft/adalora_allocator.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost;

namespace {

std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>> two_sites(int64_t initial, int64_t target) {
  torch::manual_seed(5);
  return {{"a", std::make_shared<AdaLoraImpl>(AdaLoraOptions(initial).target_rank(target), "a", 6, 5)},
          {"b", std::make_shared<AdaLoraImpl>(AdaLoraOptions(initial).target_rank(target), "b", 4, 3)}};
}

// Gives every factor of every site the gradient `scale` × its index pattern, as backward would.
void set_gradients(const std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>>& sites, double scale) {
  for (const auto& [name, site] : sites) {
    for (auto* weight : {&site->lora_A, &site->lora_E, &site->lora_B}) {
      weight->mutable_grad() = torch::arange(weight->numel(), torch::kFloat).view(weight->sizes()) * scale;
    }
  }
}

}  // namespace

TEST_CASE("the budget stays, falls cubically, then holds at the target", "[adalora][allocator]") {
  // 2 sites × 48 → 2 × 32; T = 100, t_i = 12, t_f = 52: the budget falls over steps 13 … 48.
  AdaLoraAllocator allocator(two_sites(48, 32),
                             AdaLoraScheduleOptions().initial_warmup(0.12).final_warmup(0.52).mask_interval(10));
  CHECK(allocator.initial_budget() == 96);
  CHECK(allocator.target_budget() == 64);
  CHECK(allocator.budget(1, 100) == std::pair<int64_t, bool>{96, false});
  CHECK(allocator.budget(12, 100) == std::pair<int64_t, bool>{96, false});
  // Step 30: 1 − (30 − 12)/36 = 0.5 remains; 32 · 0.125 + 64 = 68, and 30 is a reallocation step.
  CHECK(allocator.budget(30, 100) == std::pair<int64_t, bool>{68, true});
  // Step 13: 32 · (35/36)³ + 64 = 93.40… truncated; not a multiple of 10.
  CHECK(allocator.budget(13, 100) == std::pair<int64_t, bool>{93, false});
  CHECK(allocator.budget(48, 100).first == 64);
  CHECK(allocator.budget(49, 100) == std::pair<int64_t, bool>{64, true});
  CHECK(allocator.budget(100, 100) == std::pair<int64_t, bool>{64, true});
  CHECK_THROWS_WITH(AdaLoraAllocator(two_sites(4, 2), AdaLoraScheduleOptions().initial_warmup(0.5).final_warmup(0.5)),
                    Catch::Contains("sum < 1"));
}

TEST_CASE("importance is the smoothed |w·g| times its smoothed deviation", "[adalora][allocator]") {
  auto sites = two_sites(3, 2);
  AdaLoraAllocator allocator(sites, AdaLoraScheduleOptions().beta1(0.8).beta2(0.6));
  torch::NoGradGuard no_grad;
  for (const auto& [name, site] : sites) site->lora_E.fill_(1.0);
  set_gradients(sites, 1.0);
  allocator.update_importance();
  set_gradients(sites, 3.0);
  allocator.update_importance();
  // By hand for site a's λ (w = 1, g = i then 3i): Ī₁ = 0.2 i, Ū₁ = 0.4 · 0.8 i;
  // Ī₂ = 0.8 · 0.2 i + 0.2 · 3 i = 0.76 i, Ū₂ = 0.6 · 0.32 i + 0.4 · |3 i − 0.76 i| = 1.088 i.
  const auto i = torch::arange(3, torch::kFloat);
  const auto lambda_score = (0.76 * i) * (1.088 * i);
  // A's and B's entries follow the same recursion with importance |w| · k for their own index k.
  const auto smoothed = [](const torch::Tensor& base) { return (0.76 * base) * (1.088 * base); };
  const auto& a = *sites[0].second;
  const auto a_rows = smoothed((a.lora_A * torch::arange(a.lora_A.numel(), torch::kFloat).view(a.lora_A.sizes())).abs()).mean(1);
  const auto b_cols = smoothed((a.lora_B * torch::arange(a.lora_B.numel(), torch::kFloat).view(a.lora_B.sizes())).abs()).mean(0);
  const auto scores = allocator.triplet_scores();
  REQUIRE(scores.size() == 2);
  CHECK(torch::allclose(scores[0], lambda_score + a_rows + b_cols, 1e-4, 1e-6));
}

TEST_CASE("reallocation keeps the highest-scoring triplets over all sites", "[adalora][allocator]") {
  auto sites = two_sites(4, 2);
  AdaLoraAllocator allocator(sites, AdaLoraScheduleOptions());
  torch::NoGradGuard no_grad;
  for (const auto& [name, site] : sites) site->lora_E.copy_(torch::randn({4, 1}));
  set_gradients(sites, 1.0);
  allocator.update_importance();
  const auto scores = torch::cat(allocator.triplet_scores());  // (8)
  allocator.keep_top(5);
  const auto kept = torch::cat({sites[0].second->lora_E.view(-1), sites[1].second->lora_E.view(-1)}).ne(0);
  CHECK(kept.sum().item<int64_t>() == 5);
  // Every kept triplet scores above every pruned one.
  CHECK(scores.masked_select(kept).min().item<float>() > scores.masked_select(kept.logical_not()).max().item<float>());
  allocator.keep_top(8);  // the initial budget prunes nothing more
  CHECK(torch::cat({sites[0].second->lora_E.view(-1), sites[1].second->lora_E.view(-1)}).ne(0).sum().item<int64_t>() == 5);
}

TEST_CASE("the orthogonality regulariser is the weighted mean Frobenius distance from orthonormal", "[adalora][allocator]") {
  auto sites = two_sites(2, 1);
  torch::NoGradGuard no_grad;
  for (const auto& [name, site] : sites) {
    site->lora_A.zero_();
    site->lora_B.zero_();
    for (int64_t k = 0; k < 2; ++k) {
      site->lora_A[k][k] = 1.0;  // orthonormal rows
      site->lora_B[k][k] = 2.0;  // columns of norm 2: QᵀQ − I = 3 I, ‖·‖_F = 3√2
    }
  }
  AdaLoraAllocator allocator(sites, AdaLoraScheduleOptions().orthogonality_weight(0.5));
  // Four terms (P and Q of two sites): 0.5 · (0 + 3√2 + 0 + 3√2) / 4.
  CHECK(allocator.orthogonality_loss().item<double>() == Approx(0.5 * 6 * std::sqrt(2.0) / 4));
  CHECK_FALSE(AdaLoraAllocator(sites, AdaLoraScheduleOptions().orthogonality_weight(0)).orthogonality_loss().defined());
}
