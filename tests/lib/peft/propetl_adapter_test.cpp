#include "peft/propetl_adapter.h"

#include <catch2/catch.hpp>

#include "peft/learned_mask.h"

using namespace capaboost;

TEST_CASE("ProPETL-Adapter masks the shared weights per site and leaves the biases whole", "[propetl][adapter]") {
  torch::manual_seed(41);
  AdapterPrototype shared(4, 10);
  ProPetlAdapter owner(ProPetlAdapterOptions(4).keep(0.5), "layer.0", shared, /*owns_prototype=*/true);
  ProPetlAdapter other(ProPetlAdapterOptions(4).keep(0.5), "layer.1", shared, /*owns_prototype=*/false);
  torch::NoGradGuard no_grad;
  shared->down_bias.copy_(torch::randn({4}));
  shared->up_bias.copy_(torch::randn({10}));
  const auto y = torch::randn({3, 10});
  for (auto* site : {&owner, &other}) {
    const auto down = shared->down * learned_mask((*site)->mask_scores_down, 0.5);
    const auto up = shared->up * learned_mask((*site)->mask_scores_up, 0.5);
    const auto expected = y + torch::mm(torch::relu(torch::mm(y, down.t()) + shared->down_bias), up.t()) + shared->up_bias;
    CHECK(torch::allclose((*site)->adapt(y, y), expected, 1e-5, 1e-6));
  }
  CHECK_FALSE(torch::allclose(owner->adapt(y, y), other->adapt(y, y)));  // different masks, one adapter
  // The prototype counts once, at its owner; every site counts its scores.
  const int64_t scores = 2 * 4 * 10, prototype = 2 * 4 * 10 + 4 + 10;
  CHECK(owner->parameter_count().dense == prototype + scores);
  CHECK(other->parameter_count().dense == scores);
  CHECK(owner->parameters().size() == 6);
  CHECK(other->parameters().size() == 2);
}
