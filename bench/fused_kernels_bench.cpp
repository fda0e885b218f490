// Fused CPU kernels against the operators they replace, forward + backward, at the MiniLM step's shape
// (bench/minilm_step_bench.cpp: 32 × 64 tokens, hidden 384) and RoBERTa-base's (16 × 128, 768).
// impl 0: the unfused composition; impl 1: the fused kernel.
//
// BM_DropoutResidualLayerNorm: LayerNorm(dropout(x) + residual), p = 0.1, the LayerNorm frozen (as under
// LoRA), models/dropout_residual_layer_norm.h.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "models/dropout_residual_layer_norm.h"
#include "models/parallel_dropout.h"
#include "runtime/caching_cpu_allocator.h"

namespace {

using namespace capaboost;

void BM_DropoutResidualLayerNorm(benchmark::State& state) {
  runtime::enable_caching_cpu_allocator();
  const bool roberta = state.range(1) != 0;
  const int64_t rows = roberta ? 16 * 128 : 32 * 64, C = roberta ? 768 : 384;
  torch::manual_seed(0);
  const auto x = torch::randn({rows, C}).requires_grad_();
  const auto residual = torch::randn({rows, C}).requires_grad_();
  const auto weight = torch::ones({C});
  const auto bias = torch::zeros({C});
  const auto probe = torch::randn({rows, C});
  const double p = state.range(2) / 10.0;
  for (auto _ : state) {
    const auto y = state.range(0) != 0
                       ? dropout_residual_layer_norm(x, residual, p, 42, weight, bias, 1e-12)
                       : torch::layer_norm((p > 0 ? parallel_dropout(x, p, 42) : x) + residual, {C}, weight, bias, 1e-12);
    if (state.range(3) == 0) { benchmark::DoNotOptimize(y.data_ptr()); continue; }
    auto grads = torch::autograd::grad({y}, {x, residual}, {probe});
    benchmark::DoNotOptimize(grads[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * rows * C);
}
BENCHMARK(BM_DropoutResidualLayerNorm)
    ->ArgsProduct({{0, 1}, {0}, {0, 1}, {0, 1}})
    ->ArgNames({"impl", "roberta", "p10", "backward"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
