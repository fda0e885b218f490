#include "pretrain/mlm_masking.h"

#include <ATen/CPUGeneratorImpl.h>

#include <catch2/catch.hpp>

#include "models/masked_lm.h"

using namespace capaboost;

namespace {

constexpr int64_t kVocab = 1000;
constexpr int64_t kMask = 4;

MlmMasker masker(uint64_t seed = 7) {
  return MlmMasker(MlmMaskingOptions(kMask, kVocab, {0, 1, 2, 3, 4}).seed(seed));
}

// (128, 128) ids in [5, kVocab) framed by <s> … </s>, the last 28 positions of every other row padding.
torch::Tensor batch_ids() {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(11);
  auto ids = torch::randint(5, kVocab, {128, 128}, generator, torch::kInt64);
  ids.select(1, 0).fill_(0);
  ids.select(1, 99).fill_(2);
  ids.slice(0, 0, 128, 2).slice(1, 100, 128).fill_(1);
  return ids;
}

double fraction(const torch::Tensor& part, const torch::Tensor& whole) {
  return part.sum().item<double>() / whole.sum().item<double>();
}

}  // namespace

TEST_CASE("MLM masking picks 15 percent of ordinary tokens and replaces them 80-10-10",
          "[pretrain][masking]") {
  const auto ids = batch_ids();
  const auto batch = masker().mask(ids, 3);
  const auto targets = batch.labels != kIgnoreLabel;
  const auto maskable = masker().maskable(ids);

  CHECK_FALSE(targets.logical_and(maskable.logical_not()).any().item<bool>());  // never a special or pad
  CHECK(fraction(targets, maskable) == Approx(0.15).margin(0.01));
  CHECK(torch::equal(batch.labels.masked_select(targets), ids.masked_select(targets)));
  // Non-targets keep their id.
  CHECK(torch::equal(batch.input_ids.masked_select(targets.logical_not()),
                     ids.masked_select(targets.logical_not())));

  const auto masked = (batch.input_ids == kMask).logical_and(targets);
  const auto unchanged = (batch.input_ids == ids).logical_and(targets);
  const auto random = targets.logical_and(masked.logical_not()).logical_and(unchanged.logical_not());
  CHECK(fraction(masked, targets) == Approx(0.8).margin(0.03));
  CHECK(fraction(unchanged, targets) == Approx(0.1).margin(0.02));  // + the rare random draw of itself
  CHECK(fraction(random, targets) == Approx(0.1).margin(0.02));
}

TEST_CASE("MLM masking is a function of seed and step", "[pretrain][masking]") {
  const auto ids = batch_ids();
  const auto a = masker(7).mask(ids, 5);
  const auto b = masker(7).mask(ids, 5);
  CHECK(torch::equal(a.input_ids, b.input_ids));
  CHECK(torch::equal(a.labels, b.labels));
  CHECK_FALSE(torch::equal(a.labels, masker(7).mask(ids, 6).labels));
  CHECK_FALSE(torch::equal(a.labels, masker(8).mask(ids, 5).labels));
  CHECK(mix_seed(7, 5) != mix_seed(7, 6));
}

TEST_CASE("MLM masking rejects bad options and inputs", "[pretrain][masking]") {
  CHECK_THROWS_WITH(MlmMasker(MlmMaskingOptions(kVocab, kVocab, {})),
                    Catch::Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(MlmMasker(MlmMaskingOptions(kMask, kVocab, {}).mlm_probability(0.0)),
                    Catch::Contains("mlm_probability"));
  CHECK_THROWS_WITH(masker().mask(torch::zeros({4}, torch::kInt64), 0), Catch::Contains("(B, T) int64"));
}
