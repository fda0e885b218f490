#include "models/parallel_dropout.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>

using namespace capaboost;

TEST_CASE("parallel dropout keeps 1-p of the elements, scales them by 1/(1-p), zeroes the rest",
          "[dropout]") {
  const auto x = torch::rand({1000, 1000}) + 0.5;  // no zeros of its own
  for (double p : {0.1, 0.5, 0.9}) {
    INFO("p=" << p);
    const auto y = parallel_dropout(x, p, 1234);
    const auto kept = y.ne(0);
    const double kept_fraction = kept.to(torch::kDouble).mean().item<double>();
    // 1e6 Bernoulli draws: the standard deviation of the fraction is below 5e-4.
    CHECK(std::abs(kept_fraction - (1 - p)) < 3e-3);
    CHECK(torch::allclose(y.masked_select(kept), x.masked_select(kept) / (1 - p)));
    // Neighbouring elements share a 64-bit draw but use different halves: they are independent.
    const auto pairs = kept.view({-1, 2}).to(torch::kDouble);
    const double both = (pairs.select(1, 0) * pairs.select(1, 1)).mean().item<double>();
    CHECK(std::abs(both - (1 - p) * (1 - p)) < 3e-3);
  }
  CHECK(torch::equal(parallel_dropout(x, 0.0, 7), x));
  CHECK_THROWS_WITH(parallel_dropout(x, 1.0, 7), Catch::Contains("[0, 1)"));
}

TEST_CASE("parallel dropout masks depend on the seed and position only, not on the thread count",
          "[dropout]") {
  const auto x = torch::ones({4097});  // odd length: the last element uses half a draw
  const int threads = torch::get_num_threads();
  torch::set_num_threads(1);
  const auto one_thread = parallel_dropout(x, 0.3, 99);
  torch::set_num_threads(std::max(2, threads));
  const auto many_threads = parallel_dropout(x, 0.3, 99);
  torch::set_num_threads(threads);
  CHECK(torch::equal(one_thread, many_threads));
  CHECK_FALSE(torch::equal(one_thread, parallel_dropout(x, 0.3, 100)));
  // Same seed, same shape, different dtype: the same mask.
  CHECK(torch::equal(parallel_dropout(x.to(torch::kDouble), 0.3, 99).ne(0), one_thread.ne(0)));
}

TEST_CASE("parallel dropout backward applies the forward's mask and scale", "[dropout]") {
  auto x = torch::randn({64, 33}, torch::kDouble).requires_grad_();
  const auto y = parallel_dropout(x, 0.25, 5);
  const auto probe = torch::randn({64, 33}, torch::kDouble);
  (y * probe).sum().backward();
  const auto mask = y.detach().ne(0).to(torch::kDouble);
  CHECK(torch::allclose(x.grad(), probe * mask / 0.75));
}

TEST_CASE("ParallelDropout module: identity in eval, fresh repeatable masks in training", "[dropout]") {
  ParallelDropout dropout(0.5);
  const auto x = torch::ones({256});
  dropout->eval();
  CHECK(torch::equal(dropout->forward(x), x));
  dropout->train();
  torch::manual_seed(11);
  const auto first = dropout->forward(x), second = dropout->forward(x);
  CHECK_FALSE(torch::equal(first, second));
  torch::manual_seed(11);
  CHECK(torch::equal(dropout->forward(x), first));
}
