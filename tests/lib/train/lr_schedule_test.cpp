#include "train/lr_schedule.h"

#include <catch2/catch.hpp>

#include <cmath>

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

TEST_CASE("cosine decay after warm-up matches Hugging Face's get_cosine_schedule_with_warmup", "[train][lr_schedule]") {
  // 100 steps, ratio 0.1 → 10 warm-up steps; then lr = peak · (1 + cos(π · (step − 10) / 90)) / 2.
  const LinearWarmupDecay schedule(
      LinearWarmupDecayOptions(100).peak_lr(1e-3).warmup_ratio(0.1).decay(LrDecay::kCosine));
  CHECK(schedule.warmup_steps() == 10);
  CHECK(schedule.lr(0) == 0.0);
  CHECK(schedule.lr(5) == Approx(5e-4).epsilon(1e-12));  // warm-up is linear, as before
  CHECK(schedule.lr(10) == Approx(1e-3).epsilon(1e-12));
  CHECK(schedule.lr(55) == Approx(5e-4).epsilon(1e-12));  // half way down the half period
  CHECK(schedule.lr(40) == Approx(1e-3 * 0.75).epsilon(1e-12));  // cos(π/3) = 1/2
  CHECK(schedule.lr(99) == Approx(1e-3 * 0.5 * (1.0 + std::cos(M_PI * 89.0 / 90.0))).epsilon(1e-12));
  CHECK(schedule.lr(100) == Approx(0.0).margin(1e-18));
  CHECK(schedule.lr(150) == Approx(0.0).margin(1e-18));
  // Above the linear schedule everywhere in the first half of the decay, below it in the second.
  const LinearWarmupDecay linear(LinearWarmupDecayOptions(100).peak_lr(1e-3).warmup_ratio(0.1));
  CHECK(schedule.lr(30) > linear.lr(30));
  CHECK(schedule.lr(80) < linear.lr(80));
}

TEST_CASE("the decay shapes parse by name, and linear is the default", "[train][lr_schedule]") {
  CHECK(LinearWarmupDecayOptions(10).decay() == LrDecay::kLinear);
  CHECK(parse_lr_decay("cosine") == LrDecay::kCosine);
  CHECK(to_string(parse_lr_decay("linear")) == "linear");
  CHECK(lr_decay_names() == std::vector<std::string>{"linear", "cosine"});
  CHECK_THROWS_WITH(parse_lr_decay("cos"), Contains("linear or cosine"));
}
