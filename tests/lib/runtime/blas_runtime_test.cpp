#include "runtime/blas_runtime.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <torch/version.h>

#include <cstdlib>
#include <thread>

using namespace capaboost::runtime;

TEST_CASE("the suite runs on OpenBLAS with the kernel the environment asks for", "[runtime]") {
  // `make deps` installs libopenblas0-openmp; a process on the reference BLAS is 50x slower and must
  // not pass CI silently.
  const BlasInfo info = blas_info();
  INFO("library " << info.library << ", kernel " << info.kernel);
#if TORCH_VERSION_MAJOR < 2
  CHECK(info.vendor == "OpenBLAS");
#else
  // A LibTorch 2.x wheel carries its own BLAS (MKL, linked into libtorch_cpu); only the reference BLAS fails.
  CHECK(info.vendor != "reference");
#endif
  CHECK_FALSE(info.library.empty());
  if (const char* requested = std::getenv("OPENBLAS_CORETYPE")) {
    CHECK(info.kernel == requested);  // never overridden
  }
}

TEST_CASE("thread count: explicit, then CAPABOOST_THREADS, then all cores", "[runtime]") {
  const int before = torch::get_num_threads();
  configure_threads(1);
  CHECK(torch::get_num_threads() == 1);
  setenv("CAPABOOST_THREADS", "2", 1);
  configure_threads(0);
  CHECK(torch::get_num_threads() == 2);
  unsetenv("CAPABOOST_THREADS");
  configure_threads(0);
  CHECK(torch::get_num_threads() == static_cast<int>(std::thread::hardware_concurrency()));
  torch::set_num_threads(before);
}

TEST_CASE("the slow-BLAS floor scales with threads", "[runtime]") {
  CHECK(expected_min_gemm_gflops(2) == Approx(2 * expected_min_gemm_gflops(1)));
  CHECK(expected_min_gemm_gflops(0) == expected_min_gemm_gflops(1));
}

TEST_CASE("the runtime set-up makes idle OpenMP threads sleep unless told otherwise", "[runtime]") {
  // tests/main.cpp starts like every program: ensure_fast_blas_kernels re-executes with
  // OMP_WAIT_POLICY=PASSIVE when the variable was unset, so it must be set by now.
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  REQUIRE(policy != nullptr);
  CHECK(std::string(policy).size() > 0);
}
