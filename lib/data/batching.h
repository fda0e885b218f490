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

/// Hugging Face's `group_by_length` (trainer_pt_utils.get_length_grouped_indices), then consecutive
/// batches: `order` is cut into mega-batches of mega_batch_mult × batch_size, each sorted by length,
/// longest first (ties keep their order in `order`), and the first example of the mega-batch holding
/// the longest example overall swaps places with the very first one, so the largest batch comes first.
/// Batches hold examples of similar lengths and pad less; the order stays seeded through `order`.
/// mega_batch_mult = 0 is transformers' default, kTransformersMegaBatchMult: min(n / (4 × batch_size),
/// 50), at least 1 — about four mega-batches an epoch (7 for 1,000 examples at batch 32). With fewer
/// than mega_batch_mult batches in an epoch the whole epoch is one mega-batch, run from the longest
/// examples to the shortest. lengths[i] is example i's length; every index of `order` must have one.
std::vector<std::vector<int64_t>> length_grouped_batches(const std::vector<int64_t>& order,
                                                         const std::vector<int64_t>& lengths, int64_t batch_size,
                                                         int64_t mega_batch_mult = 0);

/// transformers' default mega-batch multiplier for n examples: min(n / (4 × batch_size), 50), at least 1.
int64_t transformers_mega_batch_mult(int64_t n, int64_t batch_size);

/// `batches` in the order seeded_permutation(batches.size(), seed) gives: length-grouped batches whose
/// order no longer runs from long to short (TrainerOptions::shuffle_grouped_batches).
std::vector<std::vector<int64_t>> shuffled_batches(std::vector<std::vector<int64_t>> batches, uint64_t seed);

/// How many batches make_batches gives for n indices (optimizer steps per epoch, for LR schedules).
int64_t batch_count(int64_t n, int64_t batch_size, bool drop_last = false);

}  // namespace capaboost
