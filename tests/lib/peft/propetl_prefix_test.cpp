#include "peft/propetl_prefix.h"

#include <catch2/catch.hpp>

#include "peft/learned_mask.h"

using namespace capaboost;

TEST_CASE("ProPETL-Prefix prepends the shared prefix under each site's own mask", "[propetl][prefix]") {
  torch::manual_seed(51);
  PrefixEncoder shared(3, 8, 5, /*layers=*/1);
  ProPetlPrefix first(ProPetlPrefixOptions().keep(0.5), "layer.0", shared, /*owns_prototype=*/true, 2, 4);
  ProPetlPrefix second(ProPetlPrefixOptions().keep(0.5), "layer.1", shared, /*owns_prototype=*/false, 2, 4);
  torch::NoGradGuard no_grad;
  const auto prototype = shared->layer_prefix(0);  // (3, 16)
  const KeyValues state{torch::randn({2, 2, 4, 4}), torch::randn({2, 2, 4, 4}), torch::zeros({2, 1, 1, 4})};
  for (auto* site : {&first, &second}) {
    const auto masked = prototype * learned_mask((*site)->mask_scores, 0.5);  // (3, 16)
    const auto expected = prepend_prefix(state, masked.narrow(1, 0, 8), masked.narrow(1, 8, 8), 2, 4);
    const auto tuned = (*site)->extend(state);
    CHECK(torch::allclose(tuned.keys, expected.keys));
    CHECK(torch::allclose(tuned.values, expected.values));
    CHECK(tuned.mask.size(-1) == 7);
    // Half of the prefix entries are masked to zero.
    CHECK(masked.eq(0).sum().item<int64_t>() == 24);
  }
  // l·2C scores per site, and the owner counts the generated prefix (l·2C) too.
  CHECK(first->parameter_count().dense == 2 * 3 * 16);
  CHECK(second->parameter_count().dense == 3 * 16);
  CHECK_THROWS_WITH(ProPetlPrefix(ProPetlPrefixOptions(), "x", shared, false, 4, 4), Catch::Contains("width 8"));
}
