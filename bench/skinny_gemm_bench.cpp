// LoRA's products are skinny: (2048 × 384) · (384 × 8) and the like, at the MiniLM step's shape
// (bench/minilm_step_bench.cpp: 32 × 64 tokens, hidden 384, r = 8). Debian's OpenBLAS ran them at 14–64
// GFLOP/s in one run on the 2-core AMD EPYC and at 40–78 in the next (the square products: ~190-200).
// impl 0: torch::mm (OpenBLAS); impl 1: oneDNN's matmul primitive (runtime/onednn_matmul.h), 1.3–5.1×
// faster in those runs: measured, not adopted (docs/performance.md).
//
// Arg shape: 0 x·Aᵀ (2048×384 · 384×8), 1 h·Bᵀ (2048×8 · 8×384), 2 Aᵀ's gradient (8×2048 · 2048×384),
// 3 B's gradient (384×2048 · 2048×8); an adapter of bottleneck 64: 4 down, 5 up; the frozen products for
// comparison: 6 query (2048×384 · 384×384), 7 FFN up (2048×384 · 384×1536).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <array>

#include "runtime/onednn_matmul.h"

namespace {

constexpr std::array<std::array<int64_t, 3>, 8> kShapes{{{2048, 384, 8},
                                                          {2048, 8, 384},
                                                          {8, 2048, 384},
                                                          {384, 2048, 8},
                                                          {2048, 384, 64},
                                                          {2048, 64, 384},
                                                          {2048, 384, 384},
                                                          {2048, 384, 1536}}};

// Times out = a @ b with impl 0 (torch::mm_out) or 1 (oneDNN), with its rate as the GFLOP counter.
void time_product(benchmark::State& state, int64_t impl, const torch::Tensor& a, const torch::Tensor& b,
                  torch::Tensor& out) {
  for (auto _ : state) {
    if (impl == 0) {
      torch::mm_out(out, a, b);
    } else if (!capaboost::runtime::onednn_batched_matmul(a, b, out, 1.0)) {
      state.SkipWithError("oneDNN refused the layout");
      return;
    }
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.counters["GFLOP"] = benchmark::Counter(2.0 * a.size(0) * a.size(1) * b.size(1) / 1e9,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SkinnyProduct(benchmark::State& state) {
  torch::NoGradGuard no_grad;
  const auto [m, k, n] = kShapes.at(static_cast<size_t>(state.range(0)));
  auto out = torch::empty({m, n});
  time_product(state, state.range(1), torch::randn({m, k}), torch::randn({k, n}), out);
}
BENCHMARK(BM_SkinnyProduct)->ArgsProduct({{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1}})->ArgNames({"shape", "impl"})->Unit(benchmark::kMicrosecond)->UseRealTime();

// The frozen backbone's products in a LoRA step, as the linear site computes them: W is stored (out, in),
// so the forward reads it transposed (x · Wᵀ) and the input's gradient reads it as stored (dY · W).
// Args: impl as above; layer 0 query/key/value/output (384 → 384), 1 FFN up (384 → 1536), 2 FFN down
// (1536 → 384), at 2048 rows (32 × 64 tokens); pass 0 forward, 1 input gradient.
constexpr std::array<std::array<int64_t, 2>, 3> kLayers{{{384, 384}, {384, 1536}, {1536, 384}}};

void BM_FrozenProduct(benchmark::State& state) {
  torch::NoGradGuard no_grad;
  const auto [in, out_features] = kLayers.at(static_cast<size_t>(state.range(1)));
  const bool forward = state.range(2) == 0;
  const auto weight = torch::randn({out_features, in});                         // (out, in)
  const auto a = torch::randn({2048, forward ? in : out_features});              // x: (rows, in), dY: (rows, out)
  const auto b = forward ? weight.t() : weight;                                 // Wᵀ: (in, out) as a view, W: (out, in)
  auto result = torch::empty({2048, forward ? out_features : in});
  time_product(state, state.range(0), a, b, result);
}
// impl first: its two values run one after the other, so machine drift falls between shapes, not between impls.
BENCHMARK(BM_FrozenProduct)->ArgsProduct({{0, 1}, {0, 1, 2}, {0, 1}})->ArgNames({"impl", "layer", "pass"})->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
