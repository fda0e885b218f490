#include "models/parallel_dropout.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

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

namespace {

// SplitMix64 written out again from its definition (Steele, Lea, Flood 2014), independent of the kernel.
uint64_t reference_draw(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Element i keeps iff half i%2 of draw i/2 is ≥ round(p·2³²); kept elements are x·(1/(1-p)) in x's dtype.
torch::Tensor reference_dropout(const torch::Tensor& x, double p, uint64_t seed) {
  const auto flat = x.reshape({-1}).to(torch::kDouble).contiguous();
  auto kept = torch::zeros_like(flat);
  const auto threshold = static_cast<uint64_t>(std::llround(std::ldexp(p, 32)));
  const auto in = flat.accessor<double, 1>();
  auto out = kept.accessor<double, 1>();
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const uint64_t bits = reference_draw(seed, static_cast<uint64_t>(i / 2));
    const uint64_t half = i % 2 == 0 ? (bits & 0xFFFFFFFFULL) : (bits >> 32);
    if (half >= threshold) out[i] = in[i];
  }
  // The product in x's own dtype, as the kernel rounds it.
  return (kept.to(x.scalar_type()) * torch::scalar_tensor(1.0 / (1.0 - p), x.options())).view(x.sizes());
}

}  // namespace

TEST_CASE("parallel dropout's mask is SplitMix64's, element for element, in every kernel and at every tail",
          "[dropout]") {
  // Float tensors take the AVX-512 kernel where the CPU has it (sixteen elements per step, a scalar tail),
  // double ones the scalar loop: sizes around multiples of 16 and across the threads' chunks.
  for (const auto dtype : {torch::kFloat, torch::kDouble}) {
    for (int64_t n : {1, 2, 15, 16, 17, 31, 33, 1000, 16383, 16384 * 2 + 5}) {
      for (double p : {0.1, 0.5}) {
        INFO("dtype " << dtype << ", n=" << n << ", p=" << p);
        const auto x = torch::randn({n}, dtype);
        CHECK(torch::equal(parallel_dropout(x, p, 987654321), reference_dropout(x, p, 987654321)));
      }
    }
  }
}
