#include "pretrain/neighbour_count_model.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

namespace {

torch::Tensor ids(std::vector<std::vector<int64_t>> rows) {
  std::vector<int64_t> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return torch::tensor(flat, torch::kLong).view({static_cast<int64_t>(rows.size()), -1});
}

}  // namespace

TEST_CASE("the count model predicts the most frequent centre of a neighbour pair, then backs off",
          "[baseline]") {
  // Id 0 is special (never a centre); vocabulary 10, fallback 9.
  const auto train = ids({{0, 3, 5, 4, 0}, {0, 3, 5, 4, 0}, {0, 3, 6, 4, 0}, {0, 7, 8, 2, 0}});
  NeighbourCountModel counts(train, train.ne(0), 10, 9);
  // Between 3 and 4: 5 twice, 6 once.
  CHECK(counts.predict(ids({{3, 1, 4}}))[0][1].item<int64_t>() == 5);
  // Pair (3, 2) unseen: left 3 alone was followed by 5, 5, 6 → 5.
  CHECK(counts.predict(ids({{3, 1, 2}}))[0][1].item<int64_t>() == 5);
  // Left 1 never seen, right 2 was preceded by 8 only.
  CHECK(counts.predict(ids({{1, 1, 2}}))[0][1].item<int64_t>() == 8);
  // Nothing seen: fallback.
  CHECK(counts.predict(ids({{1, 1, 1}}))[0][1].item<int64_t>() == 9);
  // Special 0 is never a centre: the pair (4, edge) at a row's end was never counted, left 4 never
  // preceded a centre, and the right edge never followed one; so the fallback.
  CHECK(counts.predict(ids({{4, 1}}))[0][1].item<int64_t>() == 9);
}

TEST_CASE("count-model ties go to the smaller id and edges are their own context", "[baseline]") {
  const auto train = ids({{2, 7, 1}, {2, 6, 1}, {8, 3, 4}});
  NeighbourCountModel counts(train, torch::ones_like(train, torch::kBool), 10, 0);
  CHECK(counts.predict(ids({{2, 9, 1}}))[0][1].item<int64_t>() == 6);  // 6 and 7 once each
  // Position 0 has the left edge: after the edge came 2, 2 and 8 → 2.
  CHECK(counts.predict(ids({{5, 1}}))[0][0].item<int64_t>() == 2);
  // (edge, 3) as a pair: only 8 was there.
  CHECK(counts.predict(ids({{4, 3}}))[0][0].item<int64_t>() == 8);
}

TEST_CASE("the count model rejects ids outside the vocabulary and mismatched shapes", "[baseline]") {
  const auto train = ids({{1, 2, 3}});
  CHECK_THROWS_WITH(NeighbourCountModel(train, torch::ones({1, 2}, torch::kBool), 10, 0), Contains("(N, T)"));
  CHECK_THROWS_WITH(NeighbourCountModel(train, train.ne(0), 3, 0), Contains("[0, 3)"));
}
