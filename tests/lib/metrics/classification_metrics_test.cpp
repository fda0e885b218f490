#include "metrics/classification_metrics.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "lib/metrics/binary_example.h"

using namespace capaboost;

using Labels = std::vector<int64_t>;
using capaboost::testing::kBinaryGuess;
using capaboost::testing::kBinaryTruth;

TEST_CASE("binary metrics on a hand-computed confusion matrix", "[metrics][classification]") {
  CHECK(accuracy(kBinaryGuess, kBinaryTruth) == Approx(0.6).epsilon(1e-15));
  CHECK(binary_f1(kBinaryGuess, kBinaryTruth) == Approx(2.0 / 3.0).epsilon(1e-15));
  CHECK(matthews_corrcoef(kBinaryGuess, kBinaryTruth) == Approx(1.0 / 6.0).epsilon(1e-15));
  // scikit-learn's docstring example: matthews_corrcoef([+1, +1, +1, -1], [+1, -1, +1, +1]) = -0.333…
  CHECK(matthews_corrcoef(Labels{1, -1, 1, 1}, Labels{1, 1, 1, -1}) == Approx(-1.0 / 3.0).epsilon(1e-15));
}

TEST_CASE("perfect and inverted predictions give MCC ±1", "[metrics][classification]") {
  Labels inverted;
  for (int64_t label : kBinaryTruth) inverted.push_back(1 - label);
  CHECK(matthews_corrcoef(kBinaryTruth, kBinaryTruth) == Approx(1.0));
  CHECK(matthews_corrcoef(inverted, kBinaryTruth) == Approx(-1.0));
  CHECK(accuracy(kBinaryTruth, kBinaryTruth) == 1.0);
  CHECK(accuracy(inverted, kBinaryTruth) == 0.0);
  CHECK(binary_f1(kBinaryTruth, kBinaryTruth) == 1.0);
  CHECK(binary_f1(inverted, kBinaryTruth) == 0.0);
}

TEST_CASE("constant predictions: MCC 0 (scikit-learn's convention), F1 by its formula",
          "[metrics][classification]") {
  const Labels all_one(kBinaryTruth.size(), 1), all_zero(kBinaryTruth.size(), 0);
  CHECK(matthews_corrcoef(all_one, kBinaryTruth) == 0.0);
  CHECK(matthews_corrcoef(all_zero, kBinaryTruth) == 0.0);
  CHECK(matthews_corrcoef(kBinaryTruth, all_one) == 0.0);  // constant labels too
  CHECK(accuracy(all_one, kBinaryTruth) == Approx(0.6));
  CHECK(binary_f1(all_one, kBinaryTruth) == Approx(12.0 / 16.0));  // TP 6, FP 4: 2·6 / (12 + 4)
  CHECK(binary_f1(all_zero, kBinaryTruth) == 0.0);
  CHECK(binary_f1(all_zero, all_zero) == 0.0);  // no positives anywhere: 0 as scikit-learn
}

TEST_CASE("multiclass MCC (MNLI-sized label sets) matches the R_K formula", "[metrics][classification]") {
  // c = 3, s = 6, every class count 2: (3·6 − 12) / √((36 − 12)(36 − 12)) = 6/24.
  CHECK(matthews_corrcoef(Labels{0, 1, 1, 2, 2, 0}, Labels{0, 0, 1, 1, 2, 2}) == Approx(0.25).epsilon(1e-15));
  // c = 8, s = 12, true counts (4, 4, 4), predicted (4, 5, 3): 48 / √(94 · 96); numpy gives
  // 0.5052911526399114.
  CHECK(matthews_corrcoef(Labels{2, 0, 2, 1, 0, 1, 1, 1, 2, 0, 1, 0}, Labels{2, 0, 1, 1, 0, 2, 1, 0, 2, 2, 1, 0}) ==
        Approx(0.5052911526399114).epsilon(1e-14));
  // For two classes it is the usual binary MCC.
  CHECK(matthews_corrcoef(kBinaryGuess, kBinaryTruth) == Approx(1.0 / 6.0));
}

TEST_CASE("metric inputs are checked", "[metrics][classification]") {
  CHECK_THROWS_WITH(accuracy(Labels{1, 0}, Labels{1}), Catch::Contains("2 predictions for 1 labels"));
  CHECK_THROWS_WITH(matthews_corrcoef(Labels{}, Labels{}), Catch::Contains("no examples"));
  CHECK_THROWS_WITH(binary_f1(Labels{1}, Labels{1, 0}), Catch::Contains("binary_f1"));
}
