#pragma once
// The tests behind a claim's verdict, on the paired differences of a few seeds: Student's t
// distribution (exact, through the regularized incomplete beta function), the two-sided test of "no
// difference", the two one-sided tests of equivalence within a margin (TOST), and Holm's step-down
// adjustment for testing several columns (or several claims) at once.
//
// With n seed pairs whose differences have mean m and standard error s = sd/√n, the statistic of a
// shift δ is (m − δ)/s with n − 1 degrees of freedom. Each p-value here is the smallest level at which
// its interval rule fires: p < 0.05 for "no difference" exactly when the 95% interval excludes 0;
// p < 0.05 for equivalence exactly when the 90% interval lies inside ±margin; p < 0.05 for "not
// equivalent" exactly when the 95% interval lies wholly outside ±margin.

#include <vector>

namespace capaboost::harness {

/// P(T ≤ t) for Student's t with `df` > 0 degrees of freedom (df may be fractional).
double student_t_cdf(double t, double df);

/// The quantile q with P(T ≤ q) = p, 0 < p < 1 (t_quantile(0.975, 2) = 4.3027).
double student_t_quantile(double p, double df);

/// What n paired differences of mean `mean` and standard error `standard_error` (sd/√n) say about
/// the shift between A and B. Fewer than two pairs, or a standard error of 0, leave the p-values at 1
/// (nothing is decided: equal values at every seed show no spread to judge a shift against).
struct PairedTests {
  double p_difference = 1;      ///< two-sided: H0 "A − B = 0"
  double p_equivalent = 1;      ///< TOST: H0 "|A − B| ≥ margin" (the larger of its two one-sided p)
  double p_not_equivalent = 1;  ///< two-sided in form: H0 "|A − B| ≤ margin", 2·P(T > (|mean| − margin)/s)
};
PairedTests paired_tests(double mean, double standard_error, int n, double margin);

/// Holm–Bonferroni: the adjusted p-values of a family of tests, in the order given. The i-th smallest
/// p becomes max over j ≤ i of min(1, (k − j + 1) · p_(j)) for k tests; reject at level α where the
/// adjusted p < α. Controls the chance of any false rejection in the family at α.
std::vector<double> holm_adjust(const std::vector<double>& p_values);

}  // namespace capaboost::harness
