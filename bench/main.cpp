// Google Benchmark runner with the suite's start-up: fast BLAS kernels and all cores, recorded in
// the benchmark context so every result file says what it ran on.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <string>

#include "runtime/blas_runtime.h"

int main(int argc, char** argv) {
  capaboost::runtime::ensure_fast_blas_kernels(argc, argv);
  capaboost::runtime::configure_threads();
  const auto info = capaboost::runtime::blas_info();
  benchmark::AddCustomContext("blas_library", info.library);
  benchmark::AddCustomContext("blas_kernel", info.kernel);
  benchmark::AddCustomContext("torch_threads", std::to_string(info.threads));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
