#include "report/significance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace capaboost::harness {
namespace {

// The continued fraction of the incomplete beta function, evaluated by the modified Lentz method: it
// converges fast for x < (a + 1)/(a + b + 2), and the caller swaps the arguments otherwise.
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double fraction = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    // The even step of the fraction, then the odd one.
    double term = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + term * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + term / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    fraction *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + term * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + term / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    fraction *= step;
    if (std::abs(step - 1.0) < kEpsilon) break;
  }
  return fraction;
}

// I_x(a, b), the regularized incomplete beta function, for 0 ≤ x ≤ 1.
double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * beta_continued_fraction(a, b, x) / a;
  return 1.0 - std::exp(log_front) * beta_continued_fraction(b, a, 1.0 - x) / b;
}

// P(T > t): computed from the tail itself, so a p-value of 1e-6 keeps its digits.
double upper_tail(double t, double df) {
  if (std::isnan(t)) return NAN;
  if (t == INFINITY) return 0.0;
  if (t == -INFINITY) return 1.0;
  const double tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? tail : 1.0 - tail;
}

// The statistic (mean − shift)/se, with its limits where the seeds agree exactly (se = 0).
double statistic(double mean, double shift, double standard_error) {
  if (standard_error > 0) return (mean - shift) / standard_error;
  if (mean == shift) return 0.0;
  return mean > shift ? INFINITY : -INFINITY;
}

}  // namespace

double student_t_cdf(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_cdf: degrees of freedom must be positive");
  return 1.0 - upper_tail(t, df);
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must lie in (0, 1)");
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  // Bisection on the distribution function: monotone, and 200 halvings reach the last bit.
  double low = 0.0, high = 1.0;
  while (student_t_cdf(high, df) < p) high *= 2.0;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double middle = 0.5 * (low + high);
    (student_t_cdf(middle, df) < p ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

PairedTests paired_tests(double mean, double standard_error, int n, double margin) {
  PairedTests tests;
  // Equal values at every seed (both sides at MCC 0, say): the two never differed in what was
  // measured, which is no evidence of a difference nor of equivalence.
  if (n < 2 || !std::isfinite(mean) || !std::isfinite(standard_error) || (mean == 0 && standard_error == 0)) {
    return tests;
  }
  const double df = n - 1;
  tests.p_difference = std::min(1.0, 2.0 * upper_tail(std::abs(statistic(mean, 0.0, standard_error)), df));
  // TOST: reject "A − B ≤ −margin" (the upper statistic) and "A − B ≥ margin" (the lower one).
  const double p_above_lower = upper_tail(statistic(mean, -margin, standard_error), df);
  const double p_below_upper = 1.0 - upper_tail(statistic(mean, margin, standard_error), df);
  tests.p_equivalent = std::max(p_above_lower, p_below_upper);
  tests.p_not_equivalent = std::min(1.0, 2.0 * upper_tail(statistic(std::abs(mean), margin, standard_error), df));
  return tests;
}

std::vector<double> holm_adjust(const std::vector<double>& p_values) {
  const size_t k = p_values.size();
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return p_values[i] < p_values[j]; });
  std::vector<double> adjusted(k);
  double running = 0.0;  // adjusted values never decrease along the sorted order
  for (size_t rank = 0; rank < k; ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(k - rank) * p_values[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace capaboost::harness
