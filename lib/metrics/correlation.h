#pragma once
// Correlation metrics of STS-B: Pearson's r and Spearman's ρ (Pearson's r of the ranks, ties getting
// their average rank, as scipy.stats.spearmanr).
//
// Undefined cases: when either input is constant (zero variance) the coefficient is undefined; scipy
// returns NaN there. We return 0.0 instead — "no measurable association", the same convention as
// scikit-learn's MCC for constant predictions — so that model selection, averages over seeds and the
// mean-of-two selection score stay well defined (a NaN would poison all three). A regression head
// that emits an exactly constant output scores 0.

#include <vector>

namespace capaboost {

/// Pearson correlation of x and y (equal sizes, at least 2 values); 0 if either is constant.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

/// 1-based ranks of `values` with ties given the mean of the ranks they span (e.g. 1, 2.5, 2.5, 4).
std::vector<double> average_ranks(const std::vector<double>& values);

/// Spearman rank correlation: pearson(average_ranks(x), average_ranks(y)); 0 if either is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace capaboost
