#include "models/dropout_packing.h"

#include <catch2/catch.hpp>
#include <torch/torch.h>

#include "models/parallel_dropout.h"

using namespace capaboost;

TEST_CASE("a tiled dropout masks every copy as one slice alone is masked", "[models][dropout][pack]") {
  ParallelDropout dropout(0.3);
  dropout->train();
  const auto x = torch::randn({4, 5, 6});  // (B, T, C)
  torch::manual_seed(7);
  const auto alone = dropout->forward(x);
  torch::manual_seed(7);
  torch::Tensor tiled;
  {
    const DropoutTiling tiling(3);
    CHECK(dropout_tiling() == 3);
    tiled = dropout->forward(x.repeat({3, 1, 1}));  // (3·B, T, C)
  }
  CHECK(dropout_tiling() == 1);
  for (int64_t i = 0; i < 3; ++i) CHECK(torch::equal(tiled.chunk(3)[i], alone));
  // Backward regenerates the same tiled mask after the scope has ended.
  torch::manual_seed(7);
  auto leaf = x.repeat({3, 1, 1}).requires_grad_();
  {
    const DropoutTiling tiling(3);
    dropout->forward(leaf).sum().backward();
  }
  CHECK(torch::equal(leaf.grad().ne(0), tiled.ne(0)));
  const DropoutTiling bad(5);
  CHECK_THROWS_WITH(dropout->forward(x), Catch::Contains("equal slices"));
}

TEST_CASE("seed replay gives every slice the seeds the first slice drew", "[models][dropout][pack]") {
  torch::manual_seed(11);
  const uint64_t first = next_dropout_seed(), second = next_dropout_seed(), after = next_dropout_seed();
  torch::manual_seed(11);
  {
    DropoutSeedReplay replay;
    CHECK(next_dropout_seed() == first);
    CHECK(next_dropout_seed() == second);
    replay.next_slice();
    CHECK(next_dropout_seed() == first);
    CHECK(next_dropout_seed() == second);
    replay.next_slice();
    CHECK(next_dropout_seed() == first);
    {
      DropoutSeedReplay inner;  // nested: its first slice draws through the outer replay
      CHECK(next_dropout_seed() == second);
      inner.next_slice();
      CHECK(next_dropout_seed() == second);
    }
    CHECK_THROWS_WITH(next_dropout_seed(), Catch::Contains("more dropout seeds"));
  }
  CHECK(next_dropout_seed() == after);  // the generator moved only for the first slice's draws
}
