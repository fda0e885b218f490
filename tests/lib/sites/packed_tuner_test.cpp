#include "sites/packed_tuner.h"

#include <catch2/catch.hpp>

#include "peft/lora.h"

using namespace capaboost;

TEST_CASE("a packed tuner adapts each slice with its own run's tuner", "[sites][pack]") {
  torch::manual_seed(3);
  std::vector<SiteTunerPtr> tuners;
  for (int i = 0; i < 3; ++i) {
    auto lora = Lora(LoraOptions(2), "site", 6, 4);
    torch::NoGradGuard no_grad;
    lora->B.normal_();  // nonzero updates, different per run
    tuners.push_back(lora.ptr());
  }
  PackedTuner packed(tuners);
  const auto x = torch::randn({3 * 2, 5, 6});  // (k·B, T, in)
  const auto y = torch::randn({3 * 2, 5, 4});  // (k·B, T, out)
  const auto adapted = packed->adapt(x, y);
  REQUIRE(adapted.sizes() == y.sizes());
  for (int64_t i = 0; i < 3; ++i) {
    CHECK(torch::allclose(adapted.chunk(3)[i], tuners[i]->adapt(x.chunk(3)[i], y.chunk(3)[i])));
  }
  CHECK(packed->parameter_count().dense == 3 * tuners[0]->parameter_count().dense);
  CHECK(packed->named_parameters().size() == 6);  // A and B of each run, shared with the runs' modules
  CHECK_THROWS_WITH(packed->adapt(x.narrow(0, 0, 5), y.narrow(0, 0, 5)), Catch::Contains("equal slices"));
}
