// GEMM throughput at RoBERTa-base shapes: fp32 tells whether the BLAS is fast; bf16 (oneDNN, CPUs with
// AVX512-BF16 or AMX only) bounds what a bf16 run can gain. At the mini encoder's shapes: whether
// packing k runs (k times the rows per product) makes its products any faster (issue #21).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "runtime/precision.h"

namespace {

// (m×k)·(k×n) in `dtype`, repeated; reported as "GFLOP N/s" (GFLOP per iteration over time).
void gemm_loop(benchmark::State& state, torch::Dtype dtype, int64_t m = 4096, int64_t k = 768, int64_t n = 768) {
  torch::NoGradGuard no_grad;
  auto a = torch::randn({m, k}).to(dtype);
  auto b = torch::randn({k, n}).to(dtype);
  auto c = torch::mm(a, b);
  for (auto _ : state) {
    torch::mm_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOP"] =
      benchmark::Counter(2.0 * m * k * n / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SgemmRobertaShape(benchmark::State& state) { gemm_loop(state, torch::kFloat); }
BENCHMARK(BM_SgemmRobertaShape)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Bf16GemmRobertaShape(benchmark::State& state) {
  if (capaboost::runtime::cpu_bf16_support().empty()) {
    state.SkipWithError("no AVX512-BF16 or AMX-BF16 on this CPU");
    return;
  }
  gemm_loop(state, torch::kBFloat16);
}
BENCHMARK(BM_Bf16GemmRobertaShape)->Unit(benchmark::kMillisecond)->UseRealTime();

// The MiniLM step's feed-forward product (bench/minilm_step_bench.cpp: 32 × 64 tokens, 384 → 1536), the
// reference rate for that step's products: two thirds of its linear FLOPs run at this shape or its transpose.
void BM_SgemmMiniLmShape(benchmark::State& state) { gemm_loop(state, torch::kFloat, 2048, 384, 1536); }
BENCHMARK(BM_SgemmMiniLmShape)->Unit(benchmark::kMillisecond)->UseRealTime();

// The mini encoder's query/key/value/output product for one batch of a fine-tuning run (32 sentences of
// ~30 tokens: 960 rows of width 128), and the same for a pack of 8 and 16 runs (rows × k).
void BM_SgemmMiniShape(benchmark::State& state) { gemm_loop(state, torch::kFloat, state.range(0), 128, 128); }
BENCHMARK(BM_SgemmMiniShape)->Arg(960)->Arg(960 * 8)->Arg(960 * 16)->ArgName("rows")->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
