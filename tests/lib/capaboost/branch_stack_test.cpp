#include "capaboost/branch_stack.h"

#include <catch2/catch.hpp>

#include "peft/adapter.h"
#include "peft/lora.h"

using namespace capaboost;

namespace {

CapaBoostOptions boost(int64_t d, MaskKind kind, double density = 0.5) {
  return CapaBoostOptions().branches(d).mask(MaskOptions().kind(kind).density(density).seed(11));
}

// Σᵢ (x (A⊙Ma_i)ᵀ)(B⊙Mb_i)ᵀ · scale, branch by branch: the paper's definition, written naively.
torch::Tensor lora_branch_sum(const BranchStack& stack, const torch::Tensor& x, const torch::Tensor& a,
                              const torch::Tensor& b, double scale) {
  torch::Tensor sum = torch::zeros({x.size(0), b.size(0)}, x.options());
  for (int64_t i = 0; i < stack.branches(); ++i) {
    auto ma = stack.branch_mask("A", i, a.sizes()).to(a.dtype());
    auto mb = stack.branch_mask("B", i, b.sizes()).to(b.dtype());
    sum = sum + torch::mm(torch::mm(x, (a * ma).t()), (b * mb).t()) * scale;
  }
  return sum;
}

}  // namespace

TEST_CASE("stacked CapaBoost-LoRA equals the explicit sum over branches, values and gradients",
          "[capaboost]") {
  torch::manual_seed(0);
  for (auto kind : {MaskKind::kDiff, MaskKind::kSame, MaskKind::kNM, MaskKind::kNone}) {
    for (int64_t d : {1, 2, 4}) {
      INFO("mask " << to_string(kind) << " d=" << d);
      Lora lora(LoraOptions(4).alpha(6).capaboost(boost(d, kind)), "layer.0.query", 16, 12);
      lora->to(torch::kFloat64);
      {
        torch::NoGradGuard g;
        lora->B.normal_();
      }
      auto x = torch::randn({5, 16}, torch::kFloat64).requires_grad_(true);
      auto y0 = torch::zeros({5, 12}, torch::kFloat64);
      auto probe = torch::randn({5, 12}, torch::kFloat64);

      auto stacked = lora->adapt(x, y0);
      auto [ga, gb, gx] = [&] {
        auto g = torch::autograd::grad({(stacked * probe).sum()}, {lora->A, lora->B, x});
        return std::make_tuple(g[0], g[1], g[2]);
      }();

      BranchStack reference_masks(boost(d, kind), "layer.0.query");
      auto naive = lora_branch_sum(reference_masks, x, lora->A, lora->B, lora->scale());
      auto g = torch::autograd::grad({(naive * probe).sum()}, {lora->A, lora->B, x});
      CHECK(torch::allclose(stacked, naive, 1e-12, 1e-12));
      CHECK(torch::allclose(ga, g[0], 1e-12, 1e-12));
      CHECK(torch::allclose(gb, g[1], 1e-12, 1e-12));
      CHECK(torch::allclose(gx, g[2], 1e-12, 1e-12));
    }
  }
}

TEST_CASE("stacked CapaBoost-adapter equals the explicit sum over branches", "[capaboost]") {
  torch::manual_seed(1);
  Adapter adapter(AdapterOptions(6).activation(AdapterActivation::kGelu).capaboost(boost(3, MaskKind::kDiff)),
                  "layer.0.output.dense", 10);
  adapter->to(torch::kFloat64);
  {
    torch::NoGradGuard g;
    adapter->down_bias.normal_();
    adapter->up_bias.normal_();
  }
  auto y = torch::randn({7, 10}, torch::kFloat64);
  auto stacked = adapter->adapt(y, y);

  BranchStack masks(boost(3, MaskKind::kDiff), "layer.0.output.dense");
  auto naive = y + adapter->up_bias;
  for (int64_t i = 0; i < 3; ++i) {
    auto md = masks.branch_mask("down", i, adapter->down.sizes()).to(torch::kFloat64);
    auto mu = masks.branch_mask("up", i, adapter->up.sizes()).to(torch::kFloat64);
    auto z = torch::gelu(torch::mm(y, (adapter->down * md).t()) + adapter->down_bias);
    naive = naive + torch::mm(z, (adapter->up * mu).t());
  }
  CHECK(torch::allclose(stacked, naive, 1e-12, 1e-12));
}

TEST_CASE("CapaBoost-LoRA gradients match finite differences", "[capaboost]") {
  torch::manual_seed(2);
  Lora lora(LoraOptions(2).alpha(2).capaboost(boost(2, MaskKind::kDiff)), "tiny", 4, 3);
  lora->to(torch::kFloat64);
  {
    torch::NoGradGuard g;
    lora->B.normal_();
  }
  auto x = torch::randn({3, 4}, torch::kFloat64);
  auto y0 = torch::zeros({3, 3}, torch::kFloat64);
  auto loss = [&] { return lora->adapt(x, y0).pow(2).sum(); };
  auto grads = torch::autograd::grad({loss()}, {lora->A, lora->B});
  const double h = 1e-6;
  for (auto [param, grad] : {std::pair{lora->A, grads[0]}, std::pair{lora->B, grads[1]}}) {
    for (int64_t i = 0; i < param.numel(); ++i) {
      torch::NoGradGuard g;
      auto flat = param.view(-1);
      const double saved = flat[i].item<double>();
      flat[i] = saved + h;
      const double up = loss().item<double>();
      flat[i] = saved - h;
      const double down = loss().item<double>();
      flat[i] = saved;
      CHECK(grad.view(-1)[i].item<double>() == Approx((up - down) / (2 * h)).margin(1e-6));
    }
  }
}

TEST_CASE("dropout-style masks resample every training forward and use the expectation in eval",
          "[capaboost]") {
  BranchStack stack(boost(2, MaskKind::kDropout), "s");
  auto w = torch::ones({8, 8});
  auto first = stack.stack("A", w, 0, /*training=*/true);
  stack.next_step();
  auto second = stack.stack("A", w, 0, /*training=*/true);
  CHECK_FALSE(torch::equal(first, second));
  CHECK(first.sum().item<double>() == 2 * 32);  // each branch keeps exactly half
  auto eval = stack.stack("A", w, 0, /*training=*/false);
  CHECK(torch::allclose(eval, torch::full({16, 8}, 0.5)));

  BranchStack fixed(boost(2, MaskKind::kDiff), "s");
  auto before = fixed.stack("A", w, 0, true);
  fixed.next_step();
  CHECK(torch::equal(before, fixed.stack("A", w, 0, true)));
}
