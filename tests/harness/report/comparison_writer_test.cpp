// The paired-differences section names the t multiplier of the intervals it prints, for the number of
// seeds they pair; a first look at one seed (make run's seed-42 table) says it has no interval yet.

#include "report/comparison_writer.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost::harness;

namespace {

// One claim, one column, paired over `seeds` seeds (the numbers themselves do not matter here).
ComparisonResult claim_over_seeds(int seeds) {
  ComparisonResult result;
  result.spec.claim = "CapaBoost-LoRA beats LoRA";
  result.spec.a.row = "CapaBoost-LoRA";
  result.spec.b.row = "LoRA";
  PairedDifference d;
  d.column_a = d.column_b = "SST-2";
  for (int s = 0; s < seeds; ++s) d.seeds.push_back(42 + s);
  d.mean = 0.5;
  d.half_width = seeds < 2 ? INFINITY : t_quantile_975(seeds - 1);
  result.differences = {d};
  result.verdict = "no signal";
  return result;
}

}  // namespace

TEST_CASE("the paired-differences text names the t of the seeds its intervals pair", "[harness][report]") {
  CHECK_THAT(render_comparisons_markdown({claim_over_seeds(3)}, "task", 1), Catch::Contains("t = 4.30 at n = 3"));
  CHECK_THAT(render_comparisons_markdown({claim_over_seeds(5)}, "task", 1), Catch::Contains("t = 2.78 at n = 5"));
  // Lines with different counts (a failed run): the largest n, whose t is the smallest in the table.
  CHECK_THAT(render_comparisons_markdown({claim_over_seeds(2), claim_over_seeds(4)}, "task", 1),
             Catch::Contains("t = 3.18 at n = 4"));
  const auto one_seed = render_comparisons_markdown({claim_over_seeds(1)}, "task", 1);
  CHECK_THAT(one_seed, Catch::Contains("one seed so far: no interval until a second seed is run"));
  CHECK_THAT(one_seed, !Catch::Contains("t = "));
  CHECK_THAT(one_seed, Catch::Contains("n < 2: none"));
}
