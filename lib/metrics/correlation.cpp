#include "metrics/correlation.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace capaboost {
namespace {

void check_pairs(const char* metric, const std::vector<double>& x, const std::vector<double>& y) {
  TORCH_CHECK(x.size() == y.size(), metric, ": ", x.size(), " predictions for ", y.size(),
              " labels; pass one prediction per example");
  TORCH_CHECK(x.size() >= 2, metric, ": needs at least 2 values, got ", x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    TORCH_CHECK(std::isfinite(x[i]) && std::isfinite(y[i]), metric, ": non-finite value at index ", i,
                " (prediction ", x[i], ", label ", y[i], "); check the model output for NaN/inf");
  }
}

}  // namespace

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  check_pairs("pearson", x, y);
  // Two passes (means first) rather than the one-pass sum-of-products formula, which loses precision
  // to cancellation when the mean is large relative to the spread.
  const double n = static_cast<double>(x.size());
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mean_x, dy = y[i] - mean_y;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx == 0.0 || syy == 0.0) return 0.0;
  // Rounding can push |r| a hair past 1 for perfectly (anti)correlated inputs.
  return std::clamp(sxy / (std::sqrt(sxx) * std::sqrt(syy)), -1.0, 1.0);
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start + 1;
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    // Positions start..end-1 hold equal values: each gets the mean of ranks start+1 .. end.
    const double rank = 0.5 * static_cast<double>(start + 1 + end);
    for (size_t i = start; i < end; ++i) ranks[order[i]] = rank;
    start = end;
  }
  return ranks;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  check_pairs("spearman", x, y);  // before ranking: NaN would break the sort's ordering
  return pearson(average_ranks(x), average_ranks(y));
}

}  // namespace capaboost
