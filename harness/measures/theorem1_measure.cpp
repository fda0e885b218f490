// The `theorem1` measure: a Monte Carlo check of the paper's Theorem 1. `trials` draws of
// X = X_col X_row and Y = Y_col Y_row with Gaussian n×r / r×n factors (n = `dim`, r = `rank`).
// Metrics: rank_mean, rank_min, rank_max, and additive_fraction, the share of trials with
// rank(X + Y) = min(2r, n).

#include <torch/torch.h>

#include "measure/numerical_rank.h"
#include "measures/measure_registry.h"

namespace capaboost::harness {
namespace {

MeasureResult measure_theorem1(const Parameters& config, const RunContext&) {
  torch::manual_seed(config.get<int64_t>("seed"));
  const int64_t n = config.get<int64_t>("dim"), r = config.get<int64_t>("rank"), trials = config.get<int64_t>("trials");
  auto low_rank = [&] {
    return torch::mm(torch::randn({n, r}, torch::kFloat64), torch::randn({r, n}, torch::kFloat64));  // (n, n)
  };
  int64_t minimum = INT64_MAX, maximum = 0, additive = 0;
  double sum = 0;
  for (int64_t t = 0; t < trials; ++t) {
    const int64_t rank = numerical_rank(low_rank() + low_rank()).rank;
    minimum = std::min(minimum, rank);
    maximum = std::max(maximum, rank);
    sum += rank;
    additive += rank == std::min(2 * r, n);
  }
  MeasureResult result;
  result.metrics = {{"rank_mean", sum / trials},
                    {"rank_min", minimum},
                    {"rank_max", maximum},
                    {"additive_fraction", static_cast<double>(additive) / trials}};
  return result;
}

ParameterList theorem1_parameters() {
  return {
      ParameterDef::integer("dim", "matrix size n").defaults_to(64).at_least(1).at_most(100000),
      ParameterDef::integer("rank", "rank r of X and Y").defaults_to(8).at_least(1).at_most(4096),
      ParameterDef::integer("trials", "Monte Carlo trials").defaults_to(100).at_least(1).at_most(1000000),
  };
}

MetricList theorem1_metrics() {
  return {
      {"rank_mean", "rank(X + Y), mean over the trials"},
      {"rank_min", "the lowest rank(X + Y) of the trials"},
      {"rank_max", "the highest rank(X + Y) of the trials"},
      {"additive_fraction", "fraction of trials where rank(X + Y) = min(2r, n), the theorem's bound"},
  };
}

[[maybe_unused]] const bool registered_theorem1_measure = register_measure(
    {"theorem1", "Monte Carlo check of Theorem 1: rank(X + Y) for random rank-r X, Y", theorem1_parameters(),
     theorem1_metrics(), measure_theorem1});

}  // namespace
}  // namespace capaboost::harness
