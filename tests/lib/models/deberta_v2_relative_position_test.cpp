// DeBERTa's log-bucketed relative positions, which the golden fixtures (40 positions, 256 buckets) never
// reach: checked against values worked out by hand from the formula, against the formula evaluated
// scalar by scalar, and for the properties the attention relies on.

#include "models/deberta_v2_relative_position.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost;

namespace {

// The formula, one distance at a time, in float32 as transformers evaluates it.
int64_t bucket_by_formula(int64_t r, int64_t bucket_size, int64_t max_position) {
  const int64_t mid = bucket_size / 2;
  const int64_t abs_pos = (r < mid && r > -mid) ? mid - 1 : std::llabs(r);
  if (abs_pos <= mid) return r;
  const float log_scale = std::log(static_cast<float>(static_cast<double>(max_position - 1) / mid));
  const float log_pos =
      std::ceil(std::log(static_cast<float>(abs_pos) / static_cast<float>(mid)) / log_scale * static_cast<float>(mid - 1)) +
      static_cast<float>(mid);
  return static_cast<int64_t>(r < 0 ? -log_pos : log_pos);
}

int64_t bucket(int64_t r, int64_t bucket_size, int64_t max_position) {
  return log_bucket_positions(torch::tensor({r}, torch::kLong), bucket_size, max_position).item<int64_t>();
}

}  // namespace

TEST_CASE("log buckets: hand-computed values for DeBERTaV3-base (256 buckets, 512 positions)", "[models][deberta]") {
  // |r| <= 128 keeps its value; beyond, 128 + ⌈log(|r|/128) / log(511/128) · 127⌉ with r's sign.
  // 200: log(1.5625) / log(3.9921875) · 127 = 40.94 → 41 → 169.   300: 78.97 → 79 → 207.
  // 511: exactly 127 → 255.   1000 (beyond the table): 188.6 → 189 → 317, clamped later by the gather.
  const std::vector<std::pair<int64_t, int64_t>> expected{
      {0, 0},     {1, 1},       {-1, -1},   {127, 127}, {-127, -127}, {128, 128}, {-128, -128},
      {129, 129}, {200, 169}, {-200, -169}, {300, 207}, {511, 255},   {-511, -255}, {1000, 317}};
  for (const auto& [r, b] : expected) {
    INFO("relative position " << r);
    CHECK(bucket(r, 256, 512) == b);
  }
}

TEST_CASE("log buckets equal the formula for every distance and several tables", "[models][deberta]") {
  for (const auto& [bucket_size, max_position] : {std::pair<int64_t, int64_t>{256, 512}, {8, 64}, {32, 100}, {64, 1024}}) {
    const auto relative = torch::arange(-1500, 1501, torch::kLong);
    const auto buckets = log_bucket_positions(relative, bucket_size, max_position);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < relative.numel(); ++i) {
      mismatches += buckets[i].item<int64_t>() != bucket_by_formula(relative[i].item<int64_t>(), bucket_size, max_position);
    }
    INFO("buckets " << bucket_size << ", positions " << max_position);
    CHECK(mismatches == 0);
    // Odd symmetry, monotone, and every distance up to max_position − 1 inside ±(bucket_size − 1).
    CHECK(torch::equal(buckets, -buckets.flip(0)));
    CHECK((buckets.slice(0, 1) - buckets.slice(0, 0, -1)).ge(0).all().item<bool>());
    const auto inside = relative.abs().lt(max_position);
    CHECK(buckets.masked_select(inside).abs().max().item<int64_t>() <= bucket_size - 1);
  }
}

TEST_CASE("relative positions are i − j, bucketed only when a bucket count is given", "[models][deberta]") {
  const auto raw = deberta_relative_positions(3, 4, -1, -1);
  CHECK(torch::equal(raw, torch::tensor({0, -1, -2, -3, 1, 0, -1, -2, 2, 1, 0, -1}, torch::kLong).view({3, 4})));
  const auto bucketed = deberta_relative_positions(20, 20, 8, 64);
  CHECK(bucketed[19][0].item<int64_t>() == bucket_by_formula(19, 8, 64));
  CHECK(bucketed[0][19].item<int64_t>() == -bucket_by_formula(19, 8, 64));
  CHECK(bucketed[5][3].item<int64_t>() == 2);  // inside half the buckets: unchanged
}
