#pragma once
// Tokenizer-free batching: which example indices form each batch. Each epoch visits the training
// examples in its own seeded order (data/permutation.h), reproducible from the run seed alone, in any
// process; padding to the longest sequence of a batch happens later, with the tokenizer.

#include <cstdint>
#include <vector>

namespace capaboost {

/// The order in which epoch `epoch` (0-based) visits n examples under run seed `seed`:
/// seeded_permutation(n, derive_seed(seed, epoch)).
std::vector<int64_t> epoch_order(int64_t n, uint64_t seed, int64_t epoch);

/// Consecutive batches of `batch_size` indices from `order`; the last batch is shorter unless
/// `drop_last` drops it.
std::vector<std::vector<int64_t>> make_batches(const std::vector<int64_t>& order, int64_t batch_size,
                                               bool drop_last = false);

/// How many batches make_batches gives for n indices (optimizer steps per epoch, for LR schedules).
int64_t batch_count(int64_t n, int64_t batch_size, bool drop_last = false);

}  // namespace capaboost
