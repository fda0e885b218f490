#include "measure/flop_count.h"

#include "peft/adapter.h"
#include "peft/lora.h"
#include "sites/tunable_linear.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("analytic FLOPs per token of a site with and without its tuner", "[flops]") {
  struct Model : torch::nn::Module {
    Model() {
      q = register_module("q", TunableLinear(768, 768));
      o = register_module("o", TunableLinear(TunableLinearOptions(768, 3072).bias(false)));
    }
    TunableLinear q{nullptr}, o{nullptr};
  } model;
  auto boost = CapaBoostOptions().branches(2).mask(MaskOptions().kind(MaskKind::kDiff).density(0.5));
  model.q->attach(std::make_shared<LoraImpl>(LoraOptions(8).capaboost(boost), "q", 768, 768));

  const auto flops = site_flops(model);
  REQUIRE(flops.size() == 2);
  CHECK(flops[0].base == 2.0 * 768 * 768 + 768);
  CHECK(flops[1].base == 2.0 * 768 * 3072);
  CHECK(flops[1].tuner.executed == 0.0);
  // Stacked rank d·r = 16: x·A_catᵀ and ·B_catᵀ, plus scale and add.
  CHECK(flops[0].tuner.executed == 2.0 * 768 * 16 * 2 + 2.0 * 768);
  // A sparse kernel multiplies only the kept half of each branch's entries.
  CHECK(flops[0].tuner.sparse_ideal == 2.0 * 2 * (0.5 * 8 * 768 * 2) + 2.0 * 768);
  CHECK(tuned_flops_factor(flops) ==
        Approx((flops[0].base + flops[1].base + flops[0].tuner.executed) / (flops[0].base + flops[1].base)));

  Adapter adapter(AdapterOptions(64), "o", 768);
  CHECK(adapter->flops_per_token().executed == 2.0 * 768 * 64 * 2 + 2.0 * 64 + 2.0 * 768 + 768);
}
