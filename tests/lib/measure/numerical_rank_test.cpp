#include "measure/numerical_rank.h"

#include <catch2/catch.hpp>

using namespace capaboost;

namespace {
// X = X_col X_row with Gaussian factors: rank r almost surely.
torch::Tensor low_rank(int64_t n, int64_t r) {
  return torch::mm(torch::randn({n, r}, torch::kFloat64), torch::randn({r, n}, torch::kFloat64));
}
}  // namespace

TEST_CASE("numerical rank of closed-form matrices", "[rank]") {
  CHECK(numerical_rank(torch::eye(5, torch::kFloat64)).rank == 5);
  CHECK(numerical_rank(torch::zeros({4, 6})).rank == 0);
  auto diag = torch::diag(torch::tensor({3.0, 2.0, 1e-20, 0.0}, torch::kFloat64));
  const auto result = numerical_rank(diag);
  CHECK(result.rank == 2);
  CHECK(result.singular_values[0].item<double>() == Approx(3.0));
  CHECK(result.tolerance == Approx(3.0 * 4 * std::numeric_limits<double>::epsilon()));
  CHECK(numerical_rank(diag, 1e-30).rank == 3);  // an explicit tolerance is honoured
  CHECK_THROWS_WITH(numerical_rank(torch::zeros({2, 2, 2})), Catch::Contains("2-D"));
}

TEST_CASE("Theorem 1 by Monte Carlo: rank(X + Y) = 2r when 2r < n, n when 2r > n", "[rank][theorem1]") {
  torch::manual_seed(2024);
  const int64_t n = 64;
  for (int trial = 0; trial < 100; ++trial) {
    INFO("trial " << trial);
    REQUIRE(numerical_rank(low_rank(n, 8) + low_rank(n, 8)).rank == 16);
    REQUIRE(numerical_rank(low_rank(n, 24) + low_rank(n, 24)).rank == 48);
    REQUIRE(numerical_rank(low_rank(n, 40) + low_rank(n, 40)).rank == n);
  }
}

TEST_CASE("effective rank: exp of the entropy of the normalised singular values", "[rank]") {
  CHECK(effective_rank(torch::ones({7}, torch::kFloat64)) == Approx(7.0));  // a flat spectrum: every direction
  CHECK(effective_rank(torch::tensor({2.0, 2.0, 0.0}, torch::kFloat64)) == Approx(2.0));
  // σ = (3, 1): p = (3/4, 1/4), exp(−(3/4 ln 3/4 + 1/4 ln 1/4)) = 1.7548…
  CHECK(effective_rank(torch::tensor({3.0, 1.0}, torch::kFloat64)) == Approx(1.75476535).epsilon(1e-8));
  CHECK(effective_rank(torch::zeros({4}, torch::kFloat64)) == 0.0);
  // Numerical rank counts a tiny direction fully; the effective rank barely moves.
  const auto nearly_one = numerical_rank(torch::diag(torch::tensor({1.0, 1e-6}, torch::kFloat64)));
  CHECK(nearly_one.rank == 2);
  CHECK(nearly_one.effective_rank == Approx(1.0).epsilon(1e-4));
}
