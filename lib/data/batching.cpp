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

std::vector<std::vector<int64_t>> shuffled_batches(std::vector<std::vector<int64_t>> batches, uint64_t seed) {
  std::vector<std::vector<int64_t>> shuffled;
  shuffled.reserve(batches.size());
  for (int64_t b : seeded_permutation(static_cast<int64_t>(batches.size()), seed))
    shuffled.push_back(std::move(batches[static_cast<size_t>(b)]));
  return shuffled;
}

int64_t transformers_mega_batch_mult(int64_t n, int64_t batch_size) {
  TORCH_CHECK(batch_size > 0, "batch size must be positive, got ", batch_size);
  // "50 or the number to get 4 megabatches, whichever is smaller", and 1 for tiny datasets.
  return std::max<int64_t>(1, std::min<int64_t>(n / (batch_size * 4), 50));
}

std::vector<std::vector<int64_t>> length_grouped_batches(const std::vector<int64_t>& order,
                                                         const std::vector<int64_t>& lengths, int64_t batch_size,
                                                         int64_t mega_batch_mult) {
  TORCH_CHECK(batch_size > 0, "batch size must be positive, got ", batch_size);
  TORCH_CHECK(mega_batch_mult >= 0, "length_grouped_batches: mega_batch_mult must be positive (0: transformers' "
              "default), got ", mega_batch_mult);
  for (int64_t index : order) {
    TORCH_CHECK(index >= 0 && index < static_cast<int64_t>(lengths.size()), "length_grouped_batches: index ", index,
                " has no length (", lengths.size(), " lengths)");
  }
  const auto length_of = [&](int64_t index) { return lengths[static_cast<size_t>(index)]; };
  const int64_t mult = mega_batch_mult > 0
                           ? mega_batch_mult
                           : transformers_mega_batch_mult(static_cast<int64_t>(order.size()), batch_size);
  const int64_t megabatch = mult * batch_size;
  std::vector<int64_t> grouped = order;
  const auto n = static_cast<int64_t>(grouped.size());
  int64_t longest_megabatch = 0, longest = -1;
  for (int64_t begin = 0; begin < n; begin += megabatch) {
    const auto first = grouped.begin() + begin, last = grouped.begin() + std::min(n, begin + megabatch);
    // Stable, as Python's sorted(): equal lengths keep the seeded order.
    std::stable_sort(first, last, [&](int64_t a, int64_t b) { return length_of(a) > length_of(b); });
    if (length_of(*first) > longest) longest = length_of(*first), longest_megabatch = begin;
  }
  if (n > 0) std::swap(grouped[0], grouped[static_cast<size_t>(longest_megabatch)]);
  return make_batches(grouped, batch_size);
}

}  // namespace capaboost
