#include "data/batching.h"

#include <torch/torch.h>

#include <algorithm>

#include "data/permutation.h"

namespace capaboost {

std::vector<int64_t> epoch_order(int64_t n, uint64_t seed, int64_t epoch) {
  TORCH_CHECK(epoch >= 0, "epoch_order: epoch must be >= 0, got ", epoch);
  return seeded_permutation(n, derive_seed(seed, static_cast<uint64_t>(epoch)));
}

int64_t batch_count(int64_t n, int64_t batch_size, bool drop_last) {
  TORCH_CHECK(batch_size > 0, "batch size must be positive, got ", batch_size);
  TORCH_CHECK(n >= 0, "batch_count: n must be >= 0, got ", n);
  return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

std::vector<std::vector<int64_t>> make_batches(const std::vector<int64_t>& order, int64_t batch_size,
                                               bool drop_last) {
  const auto n = static_cast<int64_t>(order.size());
  const int64_t count = batch_count(n, batch_size, drop_last);
  std::vector<std::vector<int64_t>> batches;
  batches.reserve(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    const int64_t begin = b * batch_size, end = std::min(n, begin + batch_size);
    batches.emplace_back(order.begin() + begin, order.begin() + end);
  }
  return batches;
}

}  // namespace capaboost
