#include "train/lr_schedule.h"

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

TEST_CASE("linear warm-up then linear decay matches the closed form", "[train][lr_schedule]") {
  // 100 steps, ratio 0.06 → ceil(6.0) = 6 warm-up steps, as Hugging Face computes them.
  LinearWarmupDecay schedule(LinearWarmupDecayOptions(100).peak_lr(2e-3).warmup_ratio(0.06));
  CHECK(schedule.warmup_steps() == 6);
  CHECK(schedule.lr(0) == 0.0);
  CHECK(schedule.lr(3) == Approx(1e-3).epsilon(1e-12));
  CHECK(schedule.lr(6) == Approx(2e-3).epsilon(1e-12));
  CHECK(schedule.lr(53) == Approx(2e-3 * 47.0 / 94.0).epsilon(1e-12));
  CHECK(schedule.lr(99) == Approx(2e-3 / 94.0).epsilon(1e-12));
  CHECK(schedule.lr(100) == 0.0);
  CHECK(schedule.lr(150) == 0.0);
}

TEST_CASE("the warm-up ratio rounds up to whole steps", "[train][lr_schedule]") {
  CHECK(LinearWarmupDecay(LinearWarmupDecayOptions(10).warmup_ratio(0.06)).warmup_steps() == 1);
  CHECK(LinearWarmupDecay(LinearWarmupDecayOptions(10).warmup_ratio(0.0)).warmup_steps() == 0);
  CHECK(LinearWarmupDecay(LinearWarmupDecayOptions(10).warmup_ratio(0.5).warmup_steps(2)).warmup_steps() == 2);
  // Without warm-up the first step runs at the peak.
  CHECK(LinearWarmupDecay(LinearWarmupDecayOptions(10).peak_lr(1.0)).lr(0) == 1.0);
}

TEST_CASE("a schedule without steps is refused with the likely cause", "[train][lr_schedule]") {
  CHECK_THROWS_WITH(LinearWarmupDecay(LinearWarmupDecayOptions(0)), Contains("no training batches"));
  CHECK_THROWS_WITH(LinearWarmupDecay(LinearWarmupDecayOptions(5).warmup_ratio(1.5)), Contains("warmup_ratio"));
}
