#include <catch2/catch.hpp>

#include "measures/measure_registry.h"
#include "support/run_measure.h"

using namespace capaboost;
using namespace capaboost::harness;

namespace {
MeasureResult run_capacity(const nlohmann::json& given) { return capaboost::testing::run_measure("capacity", given); }

nlohmann::json base(int64_t rank) {
  return {{"model", "site-64x48"}, {"method", "lora"}, {"targets", {"site"}}, {"rank", rank},
          {"alpha_over_rank", 1},  {"seed", 42},      {"target", "low_rank"}, {"target_rank", 4},
          {"restarts", 2},         {"fit_steps", 800}, {"fit_lr", 1e-2}};
}
}  // namespace

TEST_CASE("the capacity measure: LoRA meets the SVD floor, which the svd solver computes", "[capacity][measure]") {
  auto given = base(2);
  given["branches"] = 1;
  given["mask"] = "none";
  const auto lora = run_capacity(given);
  given["solver"] = "svd";
  const auto svd = run_capacity(given);
  // The truncated SVD is the floor at its own budget: rank 2 stores 2·(64 + 48) numbers.
  CHECK(svd.metrics.at("params_effective") == 2 * (64 + 48));
  CHECK(svd.metrics.at("residual").get<double>() == Approx(svd.metrics.at("svd_floor").get<double>()).margin(1e-6));
  CHECK(svd.metrics.at("budget_gap").get<double>() == Approx(0).margin(1e-6));
  CHECK(svd.metrics.at("rank") == 2);
  // The SVD is its own LoRA equivalent: one parameter's worth per parameter.
  CHECK(svd.metrics.at("capacity_per_parameter").get<double>() == Approx(1.0).epsilon(1e-6));
  CHECK(lora.metrics.at("residual").get<double>() == Approx(svd.metrics.at("residual").get<double>()).margin(1e-3));
  CHECK(lora.metrics.at("residual").get<double>() > 0.1);  // a rank-4 target
  CHECK(lora.metrics.at("converged") == 1.0);
  CHECK(lora.details.at("restarts").size() == 2);
  CHECK(lora.metrics.at("explained").get<double>() ==
        Approx(1 - std::pow(lora.metrics.at("residual").get<double>(), 2)));

  // LoRA r=4 reaches the rank-4 target; the run seed draws the target, so another seed differs.
  const auto exact = run_capacity(base(4));
  CHECK(exact.metrics.at("residual").get<double>() < 1e-3);
  auto other_seed = given;
  other_seed["seed"] = 43;
  CHECK(run_capacity(other_seed).details.at("target_singular_values") != svd.details.at("target_singular_values"));
}

TEST_CASE("the capacity measure: CapaBoost's rank 2r stays above the floor of rank 2r", "[capacity][measure]") {
  auto given = base(2);
  given["branches"] = 2;
  given["mask"] = "diff";
  given["density"] = 0.5;
  const auto boosted = run_capacity(given);
  CHECK(boosted.metrics.at("rank") == 4);
  CHECK(boosted.metrics.at("svd_floor_at_rank").get<double>() == Approx(0).margin(1e-6));  // rank-4 target
  CHECK(boosted.metrics.at("residual").get<double>() > 0.05);
  // The union of two density-0.5 masks keeps about 3/4 of the factors' entries.
  CHECK(boosted.metrics.at("params_effective").get<double>() == Approx(0.75 * 2 * (64 + 48)).epsilon(0.1));
  CHECK(boosted.metrics.at("params_dense") == 2 * (64 + 48));
}

TEST_CASE("the capacity measure refuses what it cannot fit", "[capacity][measure]") {
  auto given = base(2);
  given["method"] = "adapter";
  given.erase("rank");
  given.erase("alpha_over_rank");
  CHECK_THROWS_WITH(run_capacity(given), Catch::Contains("not a linear weight update"));
  auto svd = base(2);
  svd["branches"] = 2;
  svd["mask"] = "diff";
  svd["solver"] = "svd";
  CHECK_THROWS_WITH(run_capacity(svd), Catch::Contains("solver svd"));
  auto model = base(2);
  model["model"] = "roberta-base";
  CHECK_THROWS_WITH(run_capacity(model), Catch::Contains("site-<out>x<in>"));
}
