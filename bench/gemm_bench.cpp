// GEMM throughput at RoBERTa-base shapes: fp32 tells whether the BLAS is fast; bf16 (oneDNN, CPUs with
// AVX512-BF16 or AMX only) bounds what a bf16 run can gain.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "runtime/precision.h"

namespace {

// (4096×768)·(768×768) in `dtype`, repeated; reported as "GFLOP N/s" (GFLOP per iteration over time).
void gemm_loop(benchmark::State& state, torch::Dtype dtype) {
  torch::NoGradGuard no_grad;
  const int64_t m = 4096, k = 768, n = 768;
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

}  // namespace
