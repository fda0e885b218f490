#include "peft/learned_mask.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost;

TEST_CASE("a learned mask keeps the largest-magnitude fraction of its scores", "[propetl][mask]") {
  torch::manual_seed(11);
  const auto scores = torch::randn({5, 40});
  const auto mask = learned_mask(scores, 0.1);
  // ⌊0.9 · 200⌋ = 180 dropped, 20 kept; values exactly 0 or 1.
  CHECK(kept_entries(200, 0.1) == 20);
  CHECK(mask.sum().item<float>() == 20.0f);
  CHECK((mask.eq(0) | mask.eq(1)).all().item<bool>());
  const auto magnitude = scores.abs();
  CHECK(magnitude.masked_select(mask.gt(0.5)).min().item<float>() > magnitude.masked_select(mask.lt(0.5)).max().item<float>());
  CHECK(learned_mask(scores, 1.0).sum().item<float>() == 200.0f);
  CHECK(kept_entries(24576, 0.1) == 2458);  // ProPETL's LoRA A at r = 32: 22,118 entries dropped
  CHECK_THROWS_WITH(learned_mask(scores, 0.0), Catch::Contains("(0, 1]"));
}

TEST_CASE("the mask's gradient passes straight through to the scores' magnitudes", "[propetl][mask]") {
  torch::manual_seed(12);
  auto scores = torch::randn({4, 6}).requires_grad_(true);
  const auto weights = torch::randn({4, 6});
  (learned_mask(scores, 0.5) * weights).sum().backward();
  // ∂L/∂M = w everywhere, kept or not; through |s|: sign(s) · w.
  CHECK(torch::allclose(scores.grad(), torch::sign(scores.detach()) * weights));
}

TEST_CASE("mask scores start uniform within 1/sqrt(fan-in)", "[propetl][mask]") {
  torch::manual_seed(13);
  const auto scores = initial_mask_scores({32, 768});
  const double bound = 1.0 / std::sqrt(768.0);
  CHECK(scores.abs().max().item<double>() <= bound);
  CHECK(scores.abs().max().item<double>() > 0.95 * bound);
  const auto sliced = initial_mask_scores({64, 1536}, 12 * 64 * 1536);  // one slice of ProPETL-Prefix's scores
  CHECK(sliced.abs().max().item<double>() <= 1.0 / std::sqrt(12.0 * 64 * 1536));
}
