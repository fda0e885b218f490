#include "data/permutation.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

using namespace capaboost;

namespace {
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto perm = torch::randperm(n, generator, torch::TensorOptions().dtype(torch::kLong));
  return std::vector<int64_t>(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + n);
}
}  // namespace

TEST_CASE("seeded_permutation reproduces torch.randperm with a seeded CPU generator", "[data][permutation]") {
  // The reference's ProPETL splits draw torch.randperm(n, generator=torch.Generator().manual_seed(42)).
  // Values printed by PyTorch 1.13 (Python): randperm(1043) — CoLA's dev size — and randperm(277) — RTE's.
  const auto cola = seeded_permutation(1043, 42);
  CHECK(std::vector<int64_t>(cola.begin(), cola.begin() + 8) ==
        std::vector<int64_t>{911, 408, 813, 657, 710, 526, 977, 467});
  CHECK(cola.back() == 338);
  const auto rte = seeded_permutation(277, 42);
  CHECK(std::vector<int64_t>(rte.begin(), rte.begin() + 8) ==
        std::vector<int64_t>{207, 84, 253, 243, 190, 28, 165, 111});
  CHECK(rte.back() == 38);
  // And LibTorch's own randperm, in process, for more sizes and seeds (including a seed above 2^32,
  // which both truncate to its low 32 bits).
  for (int64_t n : {0, 1, 2, 3, 10, 408, 1500, 67349}) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{42}, uint64_t{43}, (uint64_t{1} << 40) + 7}) {
      CHECK(seeded_permutation(n, seed) == torch_randperm(n, seed));
    }
  }
}

TEST_CASE("seeded_permutation is a permutation and depends on the seed", "[data][permutation]") {
  auto perm = seeded_permutation(1000, 7);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(1000);
  std::iota(identity.begin(), identity.end(), int64_t{0});
  CHECK(sorted == identity);
  CHECK(perm != identity);
  CHECK(perm == seeded_permutation(1000, 7));
  CHECK(perm != seeded_permutation(1000, 8));
  CHECK(seeded_permutation(0, 1).empty());
  CHECK(seeded_permutation(1, 1) == std::vector<int64_t>{0});
  CHECK_THROWS_WITH(seeded_permutation(-1, 0), Catch::Contains("n must be in"));
  CHECK_THROWS_WITH(seeded_permutation(kMaxSeededPermutationSize, 0), Catch::Contains("n must be in"));
}

TEST_CASE("seeded_permutation draws every position uniformly", "[data][permutation]") {
  // Over 4000 seeds, each of 4 values lands in each of 4 positions about 1000 times (σ ≈ 27).
  int64_t counts[4][4] = {};
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    const auto perm = seeded_permutation(4, seed);
    for (int position = 0; position < 4; ++position) ++counts[position][perm[position]];
  }
  for (auto& row : counts) {
    for (int64_t count : row) CHECK(std::abs(count - 1000) < 150);
  }
}

TEST_CASE("derive_seed mixes the run seed and the stream", "[data][permutation]") {
  // splitmix64(splitmix64(seed) ^ stream), computed independently in Python.
  CHECK(derive_seed(0, 0) == 12035550249420947055ULL);
  CHECK(derive_seed(42, 0) == 6332618229526065668ULL);
  CHECK(derive_seed(42, 1) == 17532488217563185893ULL);
}
