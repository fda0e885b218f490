#include "data/permutation.h"

#include <torch/torch.h>

#include <numeric>
#include <random>

#include "util/seed_mixer.h"

namespace capaboost {

std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed) {
  TORCH_CHECK(n >= 0 && n < kMaxSeededPermutationSize, "seeded_permutation: n must be in [0, ",
              kMaxSeededPermutationSize, "), got ", n);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  // std::mt19937's sequence is fixed by the standard; seeding takes the value mod 2^32, exactly as
  // PyTorch's CPU generator does with manual_seed.
  std::mt19937 engine(static_cast<uint32_t>(seed & 0xffffffffULL));
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t j = i + static_cast<int64_t>(engine() % static_cast<uint64_t>(n - i));
    std::swap(order[i], order[j]);
  }
  return order;
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) { return splitmix64(splitmix64(seed) ^ stream); }

}  // namespace capaboost
