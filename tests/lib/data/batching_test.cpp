#include "data/batching.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "data/permutation.h"

using namespace capaboost;

TEST_CASE("epoch orders are seeded permutations, fixed per (seed, epoch)", "[data][batching]") {
  // torch.randperm(10) from a generator seeded with derive_seed(42, epoch) mod 2^32 (PyTorch 1.13).
  CHECK(epoch_order(10, 42, 0) == std::vector<int64_t>{4, 1, 2, 0, 9, 6, 3, 8, 7, 5});
  CHECK(epoch_order(10, 42, 1) == std::vector<int64_t>{7, 1, 5, 8, 2, 6, 4, 3, 9, 0});
  CHECK(epoch_order(500, 42, 3) == epoch_order(500, 42, 3));
  CHECK(epoch_order(500, 42, 3) != epoch_order(500, 42, 4));
  CHECK(epoch_order(500, 42, 3) != epoch_order(500, 43, 3));
  auto order = epoch_order(500, 1, 2);
  std::sort(order.begin(), order.end());
  std::vector<int64_t> identity(500);
  std::iota(identity.begin(), identity.end(), int64_t{0});
  CHECK(order == identity);
  CHECK_THROWS_WITH(epoch_order(10, 42, -1), Catch::Contains("epoch must be >= 0"));
}

TEST_CASE("make_batches cuts an order into consecutive batches", "[data][batching]") {
  const std::vector<int64_t> order{9, 3, 7, 1, 0, 5, 2, 8, 6, 4};
  const auto batches = make_batches(order, 4);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0] == std::vector<int64_t>{9, 3, 7, 1});
  CHECK(batches[1] == std::vector<int64_t>{0, 5, 2, 8});
  CHECK(batches[2] == std::vector<int64_t>{6, 4});
  const auto full = make_batches(order, 4, /*drop_last=*/true);
  REQUIRE(full.size() == 2);
  CHECK(full[1] == std::vector<int64_t>{0, 5, 2, 8});
  CHECK(make_batches(order, 10).size() == 1);
  CHECK(make_batches(order, 11, true).empty());
  CHECK(make_batches({}, 4).empty());
  CHECK_THROWS_WITH(make_batches(order, 0), Catch::Contains("batch size must be positive"));
}

TEST_CASE("batch_count matches make_batches", "[data][batching]") {
  CHECK(batch_count(10, 4) == 3);
  CHECK(batch_count(10, 4, true) == 2);
  CHECK(batch_count(8, 4) == 2);
  CHECK(batch_count(0, 4) == 0);
  // SST-2 under propetl: 66,349 training examples, batch 128 (the reference's).
  CHECK(batch_count(66349, 128) == 519);
  for (int64_t n : {0, 1, 127, 128, 129, 1000}) {
    std::vector<int64_t> order(static_cast<size_t>(n));
    CHECK(static_cast<int64_t>(make_batches(order, 128).size()) == batch_count(n, 128));
    CHECK(static_cast<int64_t>(make_batches(order, 128, true).size()) == batch_count(n, 128, true));
  }
}

TEST_CASE("length_grouped_batches sorts mega-batches of 50 batches by length, longest first, as transformers",
          "[data][batching]") {
  // Batch size 1: mega-batches of 50. Example i has length i % 7, except example 110 (length 9).
  std::vector<int64_t> order(120), lengths(120);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = 0; i < 120; ++i) lengths[static_cast<size_t>(i)] = i % 7;
  lengths[110] = 9;
  const auto batches = length_grouped_batches(order, lengths, 1, 50);
  REQUIRE(batches.size() == 120);
  // The longest example leads, swapped with what would have led (6, the first of length 6).
  CHECK(batches[0] == std::vector<int64_t>{110});
  CHECK(batches[100] == std::vector<int64_t>{6});
  // Ties keep the order's order: 13 follows (6 moved away); the second mega-batch starts at 55.
  CHECK(batches[1] == std::vector<int64_t>{13});
  CHECK(batches[50] == std::vector<int64_t>{55});
  for (size_t b = 51; b < 100; ++b) {
    INFO("batch " << b);
    CHECK(lengths[static_cast<size_t>(batches[b - 1][0])] >= lengths[static_cast<size_t>(batches[b][0])]);
  }
  std::vector<int64_t> all;
  for (const auto& batch : batches) all.insert(all.end(), batch.begin(), batch.end());
  std::sort(all.begin(), all.end());
  CHECK(all == order);
}

TEST_CASE("length_grouped_batches with a smaller mega-batch sorts within each group of batches", "[data][batching]") {
  // Batch size 4, one batch per group. Example i has length i % 5, except example 9 (length 8):
  // groups {0..3}, {4..7}, {8..11} sort to [3 2 1 0], [4 7 6 5], [9 8 11 10]; the longest, 9, then
  // swaps places with the first example, 3.
  std::vector<int64_t> order(12), lengths(12);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = 0; i < 12; ++i) lengths[static_cast<size_t>(i)] = i % 5;
  lengths[9] = 8;
  const auto batches = length_grouped_batches(order, lengths, 4, 1);
  CHECK(batches == std::vector<std::vector<int64_t>>{{9, 2, 1, 0}, {4, 7, 6, 5}, {3, 8, 11, 10}});
  // Two batches per group: {0..7} and {8..11}.
  CHECK(length_grouped_batches(order, lengths, 4, 2) ==
        std::vector<std::vector<int64_t>>{{9, 3, 2, 7}, {1, 6, 0, 5}, {4, 8, 11, 10}});
  CHECK_THROWS_WITH(length_grouped_batches(order, lengths, 4, -1), Catch::Contains("mega_batch_mult must be positive"));
}

TEST_CASE("mega_batch_mult 0 is transformers' default: about four mega-batches an epoch, at most 50", "[data][batching]") {
  CHECK(transformers_mega_batch_mult(1000, 32) == 7);  // a cpu-profile epoch: 1,000 examples at batch 32
  CHECK(transformers_mega_batch_mult(100000, 32) == 50);
  CHECK(transformers_mega_batch_mult(60, 32) == 1);
  std::vector<int64_t> order(1000), lengths(1000);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<int64_t>((i * 37) % 101);
  CHECK(length_grouped_batches(order, lengths, 32, 0) == length_grouped_batches(order, lengths, 32, 7));
  CHECK(length_grouped_batches(order, lengths, 32, 0) != length_grouped_batches(order, lengths, 32, 50));
}

TEST_CASE("length_grouped_batches leaves an order of equal lengths as make_batches cuts it", "[data][batching]") {
  const auto order = epoch_order(333, 42, 0);
  CHECK(length_grouped_batches(order, std::vector<int64_t>(333, 5), 16, 50) == make_batches(order, 16));
  // Grouping pads less: the sum over batches of (batch size × longest) falls.
  std::vector<int64_t> lengths(333);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<int64_t>((i * 37) % 101) + 3;
  const auto padded = [&](const std::vector<std::vector<int64_t>>& batches) {
    int64_t tokens = 0;
    for (const auto& batch : batches) {
      int64_t longest = 0;
      for (int64_t i : batch) longest = std::max(longest, lengths[static_cast<size_t>(i)]);
      tokens += longest * static_cast<int64_t>(batch.size());
    }
    return tokens;
  };
  CHECK(padded(length_grouped_batches(order, lengths, 16, 50)) < padded(make_batches(order, 16)) * 3 / 4);
  CHECK_THROWS_WITH(length_grouped_batches({0, 400}, lengths, 16), Catch::Contains("index 400 has no length"));
}

TEST_CASE("shuffled_batches reorders whole batches by a seeded permutation", "[data][batching]") {
  const auto batches = make_batches(epoch_order(100, 42, 0), 8);
  const auto shuffled = shuffled_batches(batches, 7);
  REQUIRE(shuffled.size() == batches.size());
  const auto permutation = seeded_permutation(static_cast<int64_t>(batches.size()), 7);
  for (size_t b = 0; b < shuffled.size(); ++b) CHECK(shuffled[b] == batches[static_cast<size_t>(permutation[b])]);
  CHECK(shuffled_batches(batches, 7) == shuffled);
  CHECK(shuffled_batches(batches, 8) != shuffled);
}
