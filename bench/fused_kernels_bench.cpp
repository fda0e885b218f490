// Fused CPU kernels against the operators they replace, forward + backward, at the MiniLM step's shape
// (bench/minilm_step_bench.cpp: 32 × 64 tokens, hidden 384) and RoBERTa-base's (16 × 128, 768).
// impl 0: the unfused composition; impl 1: the fused kernel.
//
// BM_DropoutResidualLayerNorm: LayerNorm(dropout(x) + residual), p = 0.1, the LayerNorm frozen (as under
// LoRA), models/dropout_residual_layer_norm.h.
// BM_MaskedSoftmaxDropout: the attention probabilities dropout(softmax(scores + mask)) over (B, H, T, T)
// scores with a padding mask, p = 0.1, models/masked_softmax_dropout.h (MiniLM: 12 heads; RoBERTa-base:
// 12 heads of 128 × 128).
// BM_SelfAttention: a self-attention layer's heads from its (B, T, C) query/key/value projections to its
// (B, T, C) context, the gradients back into the three projections, p = 0.1, a padding mask: impl 0 the
// path a layer takes when attentions are asked for (batched_matmul, masked_softmax_dropout, batched_matmul,
// the heads' permute back), impl 1 models/fused_attention.h (MiniLM: 12 heads 32 wide; RoBERTa-base: 12
// of 64).
// BM_Gelu: the feed-forward block's exact GELU over its (B·T, 4C) activations, impl 0 torch::gelu, impl 1
// models/exact_gelu.h (MiniLM: 2,048 × 1,536; RoBERTa-base: 2,048 × 3,072).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "models/batched_matmul.h"
#include "models/dropout_residual_layer_norm.h"
#include "models/exact_gelu.h"
#include "models/fused_attention.h"
#include "models/masked_softmax_dropout.h"
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

void BM_MaskedSoftmaxDropout(benchmark::State& state) {
  runtime::enable_caching_cpu_allocator();
  const bool roberta = state.range(1) != 0;
  const int64_t B = roberta ? 16 : 32, T = roberta ? 128 : 64, H = 12;
  torch::manual_seed(0);
  const auto scores = torch::randn({B, H, T, T}).requires_grad_();
  auto mask = torch::zeros({B, 1, 1, T});
  mask.narrow(-1, T - T / 4, T / 4).fill_(std::numeric_limits<float>::lowest());  // a quarter padding
  const auto probe = torch::randn({B, H, T, T});
  const double p = state.range(2) / 10.0;
  for (auto _ : state) {
    const auto y = state.range(0) != 0 ? masked_softmax_dropout(scores, mask, p, 42)
                                       : [&] {
                                           const auto probs = torch::softmax(scores + mask, -1);
                                           return p > 0 ? parallel_dropout(probs, p, 42) : probs;
                                         }();
    if (state.range(3) == 0) { benchmark::DoNotOptimize(y.data_ptr()); continue; }
    auto grads = torch::autograd::grad({y}, {scores}, {probe});
    benchmark::DoNotOptimize(grads[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * B * H * T * T);
}
BENCHMARK(BM_MaskedSoftmaxDropout)
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}, {0, 1}})
    ->ArgNames({"impl", "roberta", "p10", "backward"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_SelfAttention(benchmark::State& state) {
  runtime::enable_caching_cpu_allocator();
  const bool roberta = state.range(1) != 0;
  const int64_t B = roberta ? 16 : 32, T = roberta ? 128 : 64, H = 12, d = roberta ? 64 : 32;
  torch::manual_seed(0);
  std::vector<torch::Tensor> projections;  // query, key, value: (B, T, C)
  for (int i = 0; i < 3; ++i) projections.push_back(torch::randn({B, T, H * d}).requires_grad_());
  auto mask = torch::zeros({B, 1, 1, T});
  mask.narrow(-1, T - T / 4, T / 4).fill_(std::numeric_limits<float>::lowest());  // a quarter padding
  const auto probe = torch::randn({B, T, H * d});
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const auto heads = [&](const torch::Tensor& x) { return x.view({B, T, H, d}).permute({0, 2, 1, 3}); };
  for (auto _ : state) {
    const auto q = heads(projections[0]), k = heads(projections[1]), v = heads(projections[2]);
    const auto context = state.range(0) != 0
                             ? fused_attention(q, k, v, mask, scale, 0.1, 42)
                             : batched_matmul(masked_softmax_dropout(batched_matmul(q, k.transpose(-1, -2), scale), mask,
                                                                     0.1, 42),
                                              v);  // (B, H, T, d)
    const auto out = context.permute({0, 2, 1, 3}).reshape({B, T, H * d});
    if (state.range(2) == 0) { benchmark::DoNotOptimize(out.data_ptr()); continue; }
    auto grads = torch::autograd::grad({out}, projections, {probe});
    benchmark::DoNotOptimize(grads[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * B * H * T * T);
}
BENCHMARK(BM_SelfAttention)
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})
    ->ArgNames({"impl", "roberta", "backward"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_Gelu(benchmark::State& state) {
  runtime::enable_caching_cpu_allocator();
  const bool roberta = state.range(1) != 0;
  const int64_t rows = roberta ? 16 * 128 : 32 * 64, F = roberta ? 3072 : 1536;
  torch::manual_seed(0);
  const auto x = torch::randn({rows, F}).requires_grad_();
  const auto probe = torch::randn({rows, F});
  for (auto _ : state) {
    const auto y = state.range(0) != 0 ? exact_gelu(x) : torch::gelu(x);
    if (state.range(2) == 0) { benchmark::DoNotOptimize(y.data_ptr()); continue; }
    auto grads = torch::autograd::grad({y}, {x}, {probe});
    benchmark::DoNotOptimize(grads[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * rows * F);
}
BENCHMARK(BM_Gelu)
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})
    ->ArgNames({"impl", "roberta", "backward"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
