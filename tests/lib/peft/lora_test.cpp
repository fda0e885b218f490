#include "peft/lora.h"

#include <catch2/catch.hpp>

#include "measure/numerical_rank.h"
#include "sites/tunable_linear.h"

using namespace capaboost;

namespace {
Lora random_lora(int64_t r, int64_t d, MaskKind kind, uint64_t seed = 5) {
  auto boost = CapaBoostOptions().branches(d).mask(MaskOptions().kind(kind).density(0.5).seed(seed));
  Lora lora(LoraOptions(r).alpha(1.5 * r).capaboost(boost), "roberta.encoder.layer.0.attention.self.query",
            768, 768);
  torch::NoGradGuard no_grad;
  lora->B.normal_();  // nonzero B, as after training
  return lora;
}
}  // namespace

TEST_CASE("rank(dW) = min(d*r, 768) at RoBERTa-base shape: the paper's Table 1 pattern", "[lora][rank]") {
  torch::manual_seed(3);
  for (int64_t r : {8, 16, 32, 64}) {
    for (int64_t d : {1, 2, 4}) {
      INFO("r=" << r << " d=" << d);
      CHECK(numerical_rank(*random_lora(r, d, d == 1 ? MaskKind::kNone : MaskKind::kDiff)->delta_weight())
                .rank == std::min<int64_t>(d * r, 768));
    }
    INFO("same mask, r=" << r);
    CHECK(numerical_rank(*random_lora(r, 4, MaskKind::kSame)->delta_weight()).rank == r);
  }
}

TEST_CASE("LoRA initialisation: B = 0, A bounded as the chosen init says", "[lora]") {
  torch::manual_seed(4);
  Lora peft(LoraOptions(8), "s", 768, 64);
  CHECK(peft->B.abs().sum().item<double>() == 0.0);
  const double peft_bound = 1.0 / std::sqrt(768.0);  // kaiming_uniform(a=√5) = U(±1/√in)
  CHECK(peft->A.abs().max().item<double>() <= peft_bound);
  CHECK(peft->A.abs().max().item<double>() > 0.9 * peft_bound);
  Lora reference(LoraOptions(8).init(LoraInit::kReference), "s", 768, 64);
  const double reference_bound = 1.0 / std::sqrt(8.0);
  CHECK(reference->A.abs().max().item<double>() <= reference_bound);
  CHECK(reference->A.abs().max().item<double>() > 0.9 * reference_bound);
  // ΔW starts at zero: the tuned model equals the pre-trained one before training.
  CHECK(peft->delta_weight()->abs().max().item<double>() == 0.0);
  CHECK_THROWS_WITH(Lora(LoraOptions(0), "bad.site", 8, 8),
                    Catch::Contains("bad.site") && Catch::Contains("rank"));
}

TEST_CASE("LoRA scales by alpha/r once, with no 1/d", "[lora]") {
  torch::manual_seed(6);
  auto lora = random_lora(4, 2, MaskKind::kNone);
  // kind none with d=2: both branches see the dense factors, so dW = 2 · (α/r) · B A.
  auto expected = 2.0 * lora->scale() * torch::mm(lora->B.to(torch::kFloat64), lora->A.to(torch::kFloat64));
  CHECK(torch::allclose(*lora->delta_weight(), expected, 1e-10, 1e-12));
}

TEST_CASE("merged output equals unmerged output (LoRA and CapaBoost-LoRA)", "[lora][merge]") {
  torch::manual_seed(7);
  for (int64_t d : {1, 2}) {
    INFO("d=" << d);
    TunableLinear site(64, 48);
    auto boost =
        CapaBoostOptions().branches(d).mask(MaskOptions().kind(d == 1 ? MaskKind::kNone : MaskKind::kDiff));
    auto lora = std::make_shared<LoraImpl>(LoraOptions(4).alpha(8).capaboost(boost), "site", 64, 48);
    {
      torch::NoGradGuard g;
      lora->B.normal_();
    }
    site->attach(lora);
    site->eval();
    auto x = torch::randn({9, 64});
    auto original_weight = site->weight.clone();
    auto unmerged = site->forward(x);
    site->merge();
    CHECK(site->merged());
    CHECK(torch::allclose(site->forward(x), unmerged, 1e-5, 1e-5));
    CHECK_FALSE(torch::allclose(site->weight, original_weight));
    site->unmerge();
    CHECK(torch::allclose(site->weight, original_weight, 0, 1e-6));
    CHECK(torch::allclose(site->forward(x), unmerged, 1e-6, 1e-6));
  }
}
