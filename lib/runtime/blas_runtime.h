#pragma once
// Fast linear algebra for every CapaBoost Bench process.
//
// Debian's libtorch calls whatever libblas.so.3 the system's alternatives select. On this class of
// machine three things decide whether a training step takes seconds or minutes: an optimized BLAS
// must be installed (OpenBLAS), OpenBLAS must run kernels that match the CPU, and torch must use all
// cores (it starts with one intra-op thread here). This header gathers the start-up steps and the
// facts that go into every run's provenance.

#include <string>

namespace capaboost::runtime {

/// What the process computes its matrix products with.
struct BlasInfo {
  std::string library;       ///< shared object that provides sgemm_ (e.g. .../openblas-openmp/libblas.so.3)
  std::string vendor;        ///< "OpenBLAS", "reference" or "unknown"
  std::string kernel;        ///< OpenBLAS core name (e.g. "SkylakeX"), empty when not OpenBLAS
  std::string config;        ///< OpenBLAS build configuration string, empty when not OpenBLAS
  std::string coretype_env;  ///< value of OPENBLAS_CORETYPE at start-up, empty when unset
  int threads = 0;           ///< torch intra-op threads
};

/// Re-executes the process once with OPENBLAS_CORETYPE=SkylakeX when all of these hold: the variable
/// is unset, the CPU has AVX-512F, OpenBLAS is the loaded BLAS, and the kernel OpenBLAS picked by itself
/// is not an AVX-512 one. OpenBLAS reads the variable when the library loads (before `main`), so
/// setting it later has no effect; a re-exec is the only way to fix it from inside the program.
/// A value the environment already sets is never overridden. Call first thing in `main`.
/// The same re-exec sets OMP_WAIT_POLICY=PASSIVE when unset: idle OpenMP threads then sleep instead
/// of spinning, which keeps training fast when other processes share the cores.
void ensure_fast_blas_kernels(int argc, char** argv);

/// Sets torch's intra-op thread count: `threads` > 0 is taken as is; 0 means the environment variable
/// CAPABOOST_THREADS when set, else every available core.
void configure_threads(int threads = 0);

/// Reports the BLAS in use and the thread count (cheap; no computation).
BlasInfo blas_info();

/// Measures fp32 GEMM throughput in GFLOP/s on (m×k)·(k×n), best of `repeats`.
double measure_gemm_gflops(int m = 4096, int k = 768, int n = 768, int repeats = 5);

/// A conservative lower bound for fp32 GEMM GFLOP/s that a tuned BLAS reaches on this CPU with
/// `threads` threads (from the CPU's vector width); far below it means a slow BLAS or kernel.
double expected_min_gemm_gflops(int threads);

/// Runs a quick GEMM check and prints a loud warning to stderr, with the fix, when the throughput is
/// far below `expected_min_gemm_gflops`. Returns the measured GFLOP/s.
double warn_if_blas_slow();

/// One-call start-up for programs: fast kernels, all cores, and the slow-BLAS warning (skipped when
/// CAPABOOST_SKIP_BLAS_CHECK is set).
void initialize(int argc, char** argv);

}  // namespace capaboost::runtime
