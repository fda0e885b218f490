// Catch2 runner: tests get the same fast BLAS kernels and thread count as the `capaboost` program,
// however they are started (ctest, by hand, under a debugger).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "runtime/blas_runtime.h"

int main(int argc, char** argv) {
  capaboost::runtime::ensure_fast_blas_kernels(argc, argv);
  capaboost::runtime::configure_threads();
  return Catch::Session().run(argc, argv);
}
