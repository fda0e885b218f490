#include <catch2/catch.hpp>

#include "measures/measure_registry.h"
#include "support/run_measure.h"

using namespace capaboost;
using namespace capaboost::harness;

namespace {
MeasureResult run_rank(const nlohmann::json& given) { return capaboost::testing::run_measure("rank", given); }
}  // namespace

TEST_CASE("the rank measure reproduces Table 1's ranks and #Param factors on a 768x768 site", "[rank][measure]") {
  // Paper Table 1: LoRA r=8 is 1x; CapaBoost-LoRA at density 0.5 keeps the union of d masks,
  // 1 − 0.5^d of the entries: 0.75x for d=2, 0.94x (0.9375) for d=4.
  const nlohmann::json base = {{"model", "site-768x768"}, {"method", "lora"}, {"targets", {"site"}},
                               {"rank", 8},               {"density", 0.5},   {"seed", 42}};
  auto with = [&](int64_t branches, int64_t rank) {
    auto given = base;
    given["branches"] = branches;
    given["rank"] = rank;
    return run_rank(given);
  };
  const auto lora = with(1, 8);
  CHECK(lora.metrics.at("rank") == 8);
  CHECK(lora.metrics.at("params_vs_lora_r8").get<double>() == Approx(1.0));
  const auto d2 = with(2, 8);
  CHECK(d2.metrics.at("rank") == 16);
  CHECK(d2.metrics.at("params_vs_lora_r8").get<double>() == Approx(0.75).margin(0.01));
  const auto d4 = with(4, 64);
  CHECK(d4.metrics.at("rank") == 256);
  CHECK(d4.metrics.at("rank_min") == 256);
  CHECK(d4.metrics.at("params_vs_lora_r8").get<double>() == Approx(8 * 0.9375).margin(0.05));
  // Gaussian factors spread the update over its directions, but not evenly.
  CHECK(d4.metrics.at("effective_rank").get<double>() > 128);
  CHECK(d4.metrics.at("effective_rank").get<double>() < 256);
  CHECK(d4.details.at("sites").at("site").at("singular_values").size() == 512);
}
