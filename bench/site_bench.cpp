// Site-level cost of CapaBoost: forward + backward of one RoBERTa-base-shaped linear site
// (2,048 tokens, 768×768, frozen weight) with each tuner. The paper calls CapaBoost "free": with the
// stacked implementation CapaBoost(d, r) should cost about what LoRA of rank d·r costs.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "peft/adapter.h"
#include "peft/lora.h"
#include "sites/tunable_linear.h"

namespace {

using namespace capaboost;

constexpr int64_t kTokens = 2048;
constexpr int64_t kHidden = 768;
constexpr const char* kSite = "roberta.encoder.layer.0.attention.self.query";

CapaBoostOptions boost(int64_t d, MaskKind kind) {
  if (d == 1) return CapaBoostOptions();
  return CapaBoostOptions().branches(d).mask(MaskOptions().kind(kind).density(0.5).seed(42));
}

void run_site(benchmark::State& state, SiteTunerPtr tuner) {
  torch::manual_seed(0);
  TunableLinear site(kHidden, kHidden);
  site->weight.set_requires_grad(false);
  site->bias.set_requires_grad(false);
  site->attach(std::move(tuner));
  // x requires grad as it does inside a network whose lower layers carry tuners too.
  auto x = torch::randn({kTokens, kHidden}).requires_grad_(true);  // (T, C)
  auto probe = torch::randn({kTokens, kHidden});
  for (auto _ : state) {
    auto y = site->forward(x);  // (T, C)
    (y * probe).sum().backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
    x.mutable_grad().reset();
    for (auto& p : site->parameters()) p.mutable_grad().reset();
  }
  state.SetItemsProcessed(state.iterations() * kTokens);
}

void BM_LoRA(benchmark::State& state) {
  run_site(state, std::make_shared<LoraImpl>(LoraOptions(state.range(0)), kSite, kHidden, kHidden));
}
BENCHMARK(BM_LoRA)->Arg(8)->Arg(16)->ArgName("r")->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_CapaBoostLoRA(benchmark::State& state) {
  const auto kind = state.range(2) ? MaskKind::kNM : MaskKind::kDiff;
  run_site(state,
           std::make_shared<LoraImpl>(LoraOptions(state.range(1)).capaboost(boost(state.range(0), kind)),
                                      kSite, kHidden, kHidden));
}
BENCHMARK(BM_CapaBoostLoRA)
    ->Args({2, 8, 0})
    ->Args({2, 8, 1})
    ->ArgNames({"d", "r", "nm24"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

void BM_Adapter(benchmark::State& state) {
  run_site(state, std::make_shared<AdapterImpl>(AdapterOptions(state.range(0)), kSite, kHidden));
}
BENCHMARK(BM_Adapter)->Arg(64)->Arg(128)->ArgName("bn")->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_CapaBoostAdapter(benchmark::State& state) {
  run_site(state, std::make_shared<AdapterImpl>(
                      AdapterOptions(state.range(1)).capaboost(boost(state.range(0), MaskKind::kDiff)), kSite,
                      kHidden));
}
BENCHMARK(BM_CapaBoostAdapter)
    ->Args({2, 64})
    ->ArgNames({"d", "bn"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace
