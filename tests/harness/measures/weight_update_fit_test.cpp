#include "measures/weight_update_fit.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "measure/numerical_rank.h"
#include "peft/lora.h"

using namespace capaboost;
using namespace capaboost::harness;

namespace {
constexpr int64_t kWidth = 64;

// LoRA (scale 1) on a kWidth×kWidth site named "site"; d > 1 gives CapaBoost's diff masks at density 0.5.
Lora make_lora(int64_t rank, int64_t branches) {
  auto capaboost = CapaBoostOptions().branches(branches);
  if (branches > 1) capaboost.mask(MaskOptions().kind(MaskKind::kDiff).density(0.5).seed(7));
  return Lora(LoraOptions(rank).alpha(static_cast<double>(rank)).capaboost(capaboost), "site", kWidth, kWidth);
}

WeightUpdateFit fit(Lora& lora, const torch::Tensor& target) {
  return fit_weight_update(*lora, target, WeightUpdateFitOptions().steps(1500).lr(1e-2));
}

double svd_floor(const torch::Tensor& target, int64_t k) {
  return truncation_residual(torch::linalg_svdvals(target.to(torch::kFloat64)), k);
}
}  // namespace

TEST_CASE("synthetic targets have the spectra they are named after", "[capacity]") {
  const auto flat = synthetic_update({kWidth, 48, Spectrum::kFlat}, 1);  // (64, 48)
  CHECK(flat.sizes() == torch::IntArrayRef({kWidth, 48}));
  CHECK(flat.norm().item<double>() == Approx(std::sqrt(64.0)));
  const auto flat_sigma = torch::linalg_svdvals(flat.to(torch::kFloat64));
  CHECK(flat_sigma.min().item<double>() == Approx(flat_sigma.max().item<double>()).epsilon(1e-5));

  const auto power = torch::linalg_svdvals(
      synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kPowerLaw).exponent(1.5), 1).to(torch::kFloat64));
  for (int64_t i : {1, 4, 20, 63}) {
    CHECK(power[i].item<double>() / power[0].item<double>() == Approx(std::pow(i + 1.0, -1.5)).epsilon(1e-4));
  }

  const auto low = synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kLowRank).rank(5), 3);
  CHECK(numerical_rank(low, 1e-4).rank == 5);
  // The seed alone decides the draw; the global generator is not involved.
  torch::manual_seed(0);
  const auto again = synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kLowRank).rank(5), 3);
  CHECK(torch::equal(low, again));
  CHECK_FALSE(torch::equal(low, synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kLowRank).rank(5), 4)));

  CHECK(parse_spectrum("power_law") == Spectrum::kPowerLaw);
  CHECK_THROWS_WITH(parse_spectrum("gaussian"), Catch::Contains("flat, power_law or low_rank"));
}

TEST_CASE("the Eckart-Young floor is the closed form", "[capacity]") {
  // A flat spectrum of n equal values keeps (n − k)/n of its energy after a rank-k truncation.
  const auto flat = torch::ones({64}, torch::kFloat64);
  for (int64_t k : {0, 1, 16, 63}) CHECK(truncation_residual(flat, k) == Approx(std::sqrt((64.0 - k) / 64.0)));
  CHECK(truncation_residual(flat, 64) == 0);
  CHECK(truncation_residual(flat, 100) == 0);
  CHECK(truncation_residual(torch::tensor({3.0, 4.0}, torch::kFloat64), 1) == Approx(0.8));
  // Its inverse: the rank at which the floor meets a residual, interpolated within a step.
  CHECK(truncation_rank_for(flat, std::sqrt(48.0 / 64.0)) == Approx(16));
  CHECK(truncation_rank_for(flat, std::sqrt(47.5 / 64.0)) == Approx(16.5));
  CHECK(truncation_rank_for(flat, 1.0) == 0);
  CHECK(truncation_rank_for(flat, 0.0) == Approx(64));
  for (int64_t k : {1, 5, 30}) {
    const auto decaying = torch::pow(torch::arange(1, 65, torch::kFloat64), -1.0);
    CHECK(truncation_rank_for(decaying, truncation_residual(decaying, k)) == Approx(k));
  }
  // And an explicit truncated SVD reaches exactly that residual.
  const auto target = synthetic_update({kWidth, kWidth, Spectrum::kPowerLaw}, 5).to(torch::kFloat64);
  auto [u, s, vh] = torch::linalg_svd(target, false);
  const auto best = torch::mm(u.narrow(1, 0, 8) * s.narrow(0, 0, 8), vh.narrow(0, 0, 8));
  CHECK((target - best).norm().item<double>() / target.norm().item<double>() == Approx(truncation_residual(s, 8)));
}

TEST_CASE("LoRA fits a rank-k target exactly when r >= k, and to the Eckart-Young floor when r < k", "[capacity]") {
  torch::manual_seed(11);
  const auto target = synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kLowRank).rank(6), 2);
  auto wide = make_lora(6, 1);
  const auto exact = fit(wide, target);
  CHECK(exact.residual < 1e-3);
  CHECK(exact.converged);
  CHECK(exact.trace.front() == Approx(1.0));  // B = 0 at the start: ΔW = 0
  CHECK(exact.trace.size() == 11);
  auto narrow = make_lora(3, 1);
  const auto truncated = fit(narrow, target);
  CHECK(truncated.residual == Approx(svd_floor(target, 3)).epsilon(1e-3));
}

TEST_CASE("CapaBoost d=2 reaches what its structure can represent, and only that", "[capacity]") {
  // CapaBoost-LoRA d=2, r=4 at density 0.5: ΔW = Σᵢ (B⊙Mbᵢ)(A⊙Maᵢ) has rank 2r = 8 for almost all
  // factors, but its image is a set of dimension at most its effective parameters, the union of the
  // masks: ≈ 0.75·r·(64 + 64) = 384. Rank-8 64×64 matrices form a set of dimension 8·(128 − 8) = 960,
  // so a generic rank-8 target lies outside the image and keeps a residual, while a target drawn from
  // the image (same masks, random factors) is reached. No rank-8 fit beats the Eckart–Young floor.
  torch::manual_seed(12);
  auto source = make_lora(4, 2);
  {
    torch::NoGradGuard no_grad;
    source->A.normal_();
    source->B.normal_();
  }
  const auto drawn = *source->delta_weight();  // (64, 64) float64, rank 8
  CHECK(numerical_rank(drawn).rank == 8);
  const auto realizable = (drawn * (std::sqrt(64.0) / drawn.norm().item<double>())).to(torch::kFloat32);
  auto boosted = make_lora(4, 2);
  CHECK(fit(boosted, realizable).residual < 1e-3);
  // LoRA r=4 cannot: the realizable target has rank 8.
  auto lora = make_lora(4, 1);
  CHECK(fit(lora, realizable).residual > 0.1);

  const auto generic = synthetic_update(SyntheticUpdateOptions(kWidth, kWidth, Spectrum::kLowRank).rank(8), 3);
  auto boosted_again = make_lora(4, 2);
  const auto result = fit(boosted_again, generic);
  CHECK(result.residual > 0.1);
  CHECK(numerical_rank(result.delta).rank == 8);

  const auto power = synthetic_update({kWidth, kWidth, Spectrum::kPowerLaw}, 4);
  auto on_power = make_lora(4, 2);
  CHECK(fit(on_power, power).residual >= svd_floor(power, 8) - 1e-6);
}

TEST_CASE("the output error weighs the update by the inputs' second moments", "[capacity]") {
  torch::manual_seed(13);
  // Inputs with a strongly anisotropic covariance: most of their energy in 4 directions.
  const auto basis = torch::randn({kWidth, kWidth});
  auto scales = torch::full({kWidth}, 0.05);
  scales.narrow(0, 0, 4).fill_(3.0);
  const auto inputs = torch::mm(torch::randn({512, kWidth}) * scales, basis);  // (512, 64)
  const auto weighting = input_weighting(inputs);                               // (64, 64)
  // M Mᵀ = XᵀX / rows, so ‖E M‖² is the mean squared output error ‖E x‖² over the rows.
  CHECK(torch::allclose(torch::mm(weighting, weighting.t()), torch::mm(inputs.t(), inputs) / 512.0, 1e-3, 1e-2));
  const auto error = torch::randn({kWidth, kWidth});
  CHECK(torch::mm(error, weighting).square().sum().item<double>() ==
        Approx(torch::mm(inputs, error.t()).square().sum().item<double>() / 512.0).epsilon(1e-3));

  // A full-rank target: in the weights' norm LoRA r=4 keeps most of the flat residual, on these inputs
  // it reaches the floor of ΔW* M, which the four strong input directions make small.
  const auto target = synthetic_update({kWidth, kWidth, Spectrum::kFlat}, 6);
  auto lora = make_lora(4, 1);
  const auto on_outputs = fit_weight_update(*lora, target, WeightUpdateFitOptions().steps(1500).lr(1e-2).weighting(weighting));
  const double floor = truncation_residual(torch::linalg_svdvals(torch::mm(target, weighting).to(torch::kFloat64)), 4);
  CHECK(on_outputs.residual == Approx(floor).epsilon(1e-2));
  CHECK(on_outputs.residual < 0.3);
  CHECK(svd_floor(target, 4) > 0.9);
  // The identity weighting is the weights' own norm.
  torch::manual_seed(14);
  auto plain = make_lora(4, 1);
  torch::manual_seed(14);
  auto identity = make_lora(4, 1);
  const double unweighted = fit(plain, target).residual;
  const double weighted = fit_weight_update(*identity, target,
                                            WeightUpdateFitOptions().steps(1500).lr(1e-2).weighting(torch::eye(kWidth)))
                              .residual;
  CHECK(weighted == Approx(unweighted).epsilon(1e-4));
}

TEST_CASE("fitting refuses what has no weight update to fit", "[capacity]") {
  auto lora = make_lora(2, 1);
  CHECK_THROWS_WITH(fit_weight_update(*lora, torch::zeros({kWidth, kWidth})), Catch::Contains("target is zero"));
  CHECK_THROWS_WITH(fit_weight_update(*lora, torch::zeros({kWidth})), Catch::Contains("(out, in)"));
}
