#include "metrics/correlation.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace capaboost;

namespace {
using Values = std::vector<double>;
}

TEST_CASE("Pearson on hand-computed cases", "[metrics][correlation]") {
  // x = 1..5, y = (2, 4, 5, 4, 5): Sxy = 6, Sxx = 10, Syy = 6 → r = 6/√60 (numpy: 0.7745966692414834).
  CHECK(pearson(Values{1, 2, 3, 4, 5}, Values{2, 4, 5, 4, 5}) == Approx(6.0 / std::sqrt(60.0)).epsilon(1e-15));
  CHECK(pearson(Values{3.1, 1.2, 1.2, 4.8, 0.5, 3.1, 2.2, 4.8}, Values{2.0, 1.0, 1.5, 5.0, 0.0, 2.0, 3.5, 4.0}) ==
        Approx(0.876116151668982).epsilon(1e-13));  // numpy.corrcoef
  // Invariant to affine maps with positive slope; a large offset must not cost precision.
  CHECK(pearson(Values{1e9 + 1, 1e9 + 2, 1e9 + 3}, Values{1, 2, 3}) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("perfect and inverted predictions give ±1", "[metrics][correlation]") {
  const Values labels{0.0, 1.2, 2.5, 3.0, 4.8, 5.0};
  Values scaled, inverted;
  for (double v : labels) {
    scaled.push_back(2.0 * v + 1.0);
    inverted.push_back(5.0 - v);
  }
  CHECK(pearson(scaled, labels) == Approx(1.0).epsilon(1e-14));
  CHECK(pearson(scaled, labels) <= 1.0);  // rounding never takes |r| past 1
  CHECK(pearson(inverted, labels) == Approx(-1.0).epsilon(1e-14));
  CHECK(pearson(inverted, labels) >= -1.0);
  CHECK(spearman(scaled, labels) == Approx(1.0));
  CHECK(spearman(inverted, labels) == Approx(-1.0));
  // Spearman sees only order: a monotone non-linear map keeps ρ = 1 while r < 1.
  Values cubed;
  for (double v : labels) cubed.push_back(v * v * v);
  CHECK(spearman(cubed, labels) == Approx(1.0));
  CHECK(pearson(cubed, labels) < 0.99);
}

TEST_CASE("average ranks give ties the mean of their ranks", "[metrics][correlation]") {
  CHECK(average_ranks(Values{10, 20, 20, 30, 20}) == Values{1, 3, 3, 5, 3});
  CHECK(average_ranks(Values{2, 4, 5, 4, 5}) == Values{1, 2.5, 4.5, 2.5, 4.5});
  CHECK(average_ranks(Values{7, 7, 7}) == Values{2, 2, 2});
  CHECK(average_ranks(Values{3, 1, 2}) == Values{3, 1, 2});
}

TEST_CASE("Spearman with ties on hand-ranked cases", "[metrics][correlation]") {
  // ranks (1..5) and (1, 2.5, 4.5, 2.5, 4.5): Sxy = 7, Sxx = 10, Syy = 9 → ρ = 7/√90.
  CHECK(spearman(Values{1, 2, 3, 4, 5}, Values{2, 4, 5, 4, 5}) == Approx(7.0 / std::sqrt(90.0)).epsilon(1e-15));
  // ranks (5.5, 2.5, 2.5, 7.5, 1, 5.5, 4, 7.5) and (4.5, 2, 3, 8, 1, 4.5, 6, 7); numpy.corrcoef of the ranks.
  CHECK(spearman(Values{3.1, 1.2, 1.2, 4.8, 0.5, 3.1, 2.2, 4.8}, Values{2.0, 1.0, 1.5, 5.0, 0.0, 2.0, 3.5, 4.0}) ==
        Approx(0.9147021665807529).epsilon(1e-13));
}

TEST_CASE("constant inputs: Pearson and Spearman are undefined and return 0", "[metrics][correlation]") {
  const Values labels{0.5, 1.0, 4.0, 2.0};
  const Values constant(4, 2.5);
  CHECK(pearson(constant, labels) == 0.0);
  CHECK(pearson(labels, constant) == 0.0);
  CHECK(spearman(constant, labels) == 0.0);
  CHECK(pearson(constant, constant) == 0.0);
}

TEST_CASE("correlation inputs are checked", "[metrics][correlation]") {
  CHECK_THROWS_WITH(pearson(Values{1, 2}, Values{1, 2, 3}), Catch::Contains("2 predictions for 3 labels"));
  CHECK_THROWS_WITH(pearson(Values{1}, Values{1}), Catch::Contains("at least 2"));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(spearman(Values{1, nan, 3}, Values{1, 2, 3}), Catch::Contains("non-finite value at index 1"));
}
