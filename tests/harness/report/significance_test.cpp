// Student's t, the paired tests and Holm's adjustment against closed forms and printed tables: with 2
// degrees of freedom P(T > t) = (1 − t/√(t² + 2))/2, with 1 (Cauchy) P(T ≤ t) = 1/2 + atan(t)/π.

#include "report/significance.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost::harness;

namespace {

double upper_tail_df2(double t) { return (1.0 - t / std::sqrt(t * t + 2.0)) / 2.0; }

}  // namespace

TEST_CASE("Student's t distribution function against closed forms and tables", "[harness][report][statistics]") {
  for (const double t : {-3.0, -0.5, 0.0, 0.7, 2.5, 40.0}) {
    CHECK(student_t_cdf(t, 1) == Approx(0.5 + std::atan(t) / M_PI).margin(1e-12));
    CHECK(student_t_cdf(t, 2) == Approx(1.0 - upper_tail_df2(t)).margin(1e-12));
  }
  // Printed two-sided 95% points: df 10 → 2.228139, df 30 → 2.042272; a large df approaches the normal's.
  CHECK(student_t_cdf(2.228139, 10) == Approx(0.975).margin(1e-7));
  CHECK(student_t_cdf(2.042272, 30) == Approx(0.975).margin(1e-7));
  CHECK(student_t_cdf(1.959964, 1e7) == Approx(0.975).margin(1e-6));
  // A tail far out keeps its digits: P(T > 1000) with 2 df is 1/(2·1000²)·(1 − …) ≈ 4.99999e-7.
  CHECK(1.0 - student_t_cdf(1000, 2) == Approx(upper_tail_df2(1000)).epsilon(1e-6));
}

TEST_CASE("Student's t quantiles invert the distribution function", "[harness][report][statistics]") {
  CHECK(student_t_quantile(0.975, 2) == Approx(4.302653).margin(1e-6));
  CHECK(student_t_quantile(0.95, 2) == Approx(2.919986).margin(1e-6));
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776445).margin(1e-6));
  CHECK(student_t_quantile(0.025, 2) == Approx(-4.302653).margin(1e-6));
  CHECK(student_t_quantile(0.75, 1) == Approx(1.0).margin(1e-9));
  CHECK_THROWS(student_t_quantile(1.0, 2));
}

TEST_CASE("paired tests: difference, equivalence and non-equivalence by hand", "[harness][report][statistics]") {
  // Three pairs, mean 4, se 2/√3: t = 2√3.
  const double se = 2.0 / std::sqrt(3.0);
  const auto tests = paired_tests(4.0, se, 3, 1.0);
  CHECK(tests.p_difference == Approx(2 * upper_tail_df2(4.0 / se)));
  // Equivalence within ±1: the upper one-sided test (mean − 1)/se = 3/se decides, P(T < 3/se) is large.
  CHECK(tests.p_equivalent == Approx(1.0 - upper_tail_df2(3.0 / se)));
  // Not equivalent: 2·P(T > (|mean| − 1)/se).
  CHECK(tests.p_not_equivalent == Approx(2 * upper_tail_df2(3.0 / se)));
  // Mean 0.1, se 0.1 within ±1: both one-sided tests reject; the larger p is the upper one, (0.1 − 1)/0.1.
  const auto close = paired_tests(0.1, 0.1, 3, 1.0);
  CHECK(close.p_equivalent == Approx(upper_tail_df2(9.0)));
  CHECK(close.p_not_equivalent == 1.0);
  // Equal values at every seed show nothing; a constant nonzero gap is certain.
  CHECK(paired_tests(0.0, 0.0, 3, 1.0).p_difference == 1.0);
  CHECK(paired_tests(0.0, 0.0, 3, 1.0).p_equivalent == 1.0);
  CHECK(paired_tests(8.0, 0.0, 3, 1.0).p_difference == 0.0);
  CHECK(paired_tests(8.0, 0.0, 3, 1.0).p_not_equivalent == 0.0);
  CHECK(paired_tests(0.5, 0.0, 3, 1.0).p_equivalent == 0.0);
  // One pair: nothing decides.
  CHECK(paired_tests(5.0, INFINITY, 1, 1.0).p_difference == 1.0);
}

TEST_CASE("Holm's step-down adjustment by hand", "[harness][report][statistics]") {
  // Sorted: 0.005 ×4 = 0.02, 0.01 ×3 = 0.03, 0.03 ×2 = 0.06, 0.04 ×1 = 0.04 → kept at the running 0.06.
  const auto adjusted = holm_adjust({0.01, 0.04, 0.03, 0.005});
  REQUIRE(adjusted.size() == 4);
  CHECK(adjusted[0] == Approx(0.03));
  CHECK(adjusted[1] == Approx(0.06));
  CHECK(adjusted[2] == Approx(0.06));
  CHECK(adjusted[3] == Approx(0.02));
  // Capped at 1; one test is unchanged; none is none.
  CHECK(holm_adjust({0.4, 0.5}) == std::vector<double>{0.8, 0.8});
  CHECK(holm_adjust({0.7, 0.9}) == std::vector<double>{1.0, 1.0});
  CHECK(holm_adjust({0.03}) == std::vector<double>{0.03});
  CHECK(holm_adjust({}).empty());
}
