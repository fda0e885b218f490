// fp32 GEMM throughput at RoBERTa-base shapes: the number that tells whether the BLAS is fast.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

void BM_SgemmRobertaShape(benchmark::State& state) {
  torch::NoGradGuard no_grad;
  const int64_t m = 4096, k = 768, n = 768;
  auto a = torch::randn({m, k});
  auto b = torch::randn({k, n});
  auto c = torch::mm(a, b);
  for (auto _ : state) {
    torch::mm_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  // Shown as "GFLOP N/s": GFLOP per iteration turned into a rate over the measured time.
  state.counters["GFLOP"] =
      benchmark::Counter(2.0 * m * k * n / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SgemmRobertaShape)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
