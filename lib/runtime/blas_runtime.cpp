#include "runtime/blas_runtime.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace capaboost::runtime {
namespace {

// Set by the re-exec so a second start never loops, and so provenance can tell the value was ours.
constexpr const char* kReexecMarker = "CAPABOOST_BLAS_REEXEC";

using CharFn = char* (*)();

std::string call_openblas_string(const char* symbol) {
  // dlsym on RTLD_DEFAULT: OpenBLAS is already loaded as libtorch's BLAS; we never link it directly,
  // so the program still runs on a machine whose libblas.so.3 is another implementation.
  auto fn = reinterpret_cast<CharFn>(dlsym(RTLD_DEFAULT, symbol));
  return fn ? std::string(fn()) : std::string();
}

bool cpu_has_flag(const std::string& flag) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    return (line + " ").find(" " + flag + " ") != std::string::npos;
  }
  return false;
}

bool is_avx512_kernel(const std::string& kernel) {
  static const char* const kAvx512Kernels[] = {"SkylakeX", "Cooperlake", "SapphireRapids", "Zen4"};
  return std::any_of(std::begin(kAvx512Kernels), std::end(kAvx512Kernels),
                     [&](const char* k) { return kernel == k; });
}

}  // namespace

void ensure_fast_blas_kernels(int argc, char** argv) {
  (void)argc;
  if (std::getenv(kReexecMarker) != nullptr) return;
  std::vector<std::string> changes;
  // libgomp's idle threads spin before sleeping. When other processes share the cores (parallel
  // workers, a build, CI neighbours) the spinning threads steal the CPU the working one needs: a
  // tiny-model fine-tuning step measured 20× slower with the default policy on a loaded 2-core
  // machine (935 vs 20.3k tokens/s). Idle threads that sleep cost microseconds per parallel region.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    changes.push_back("OMP_WAIT_POLICY=PASSIVE");
  }
  std::string kernel;
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    kernel = call_openblas_string("openblas_get_corename");
    if (!kernel.empty() && !is_avx512_kernel(kernel) && cpu_has_flag("avx512f")) {
      setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
      changes.push_back("OPENBLAS_CORETYPE=SkylakeX");
    }
  }
  if (changes.empty()) return;
  setenv(kReexecMarker, kernel.empty() ? "1" : kernel.c_str(), 1);
  execv("/proc/self/exe", argv);
  // execv only returns on failure: keep running with the settings the process started with.
  std::cerr << fmt::format("capaboost: could not re-exec with {} ({}); continuing without\n",
                           fmt::join(changes, " "), std::strerror(errno));
}

void configure_threads(int threads) {
  if (threads <= 0) {
    if (const char* env = std::getenv("CAPABOOST_THREADS")) threads = std::atoi(env);
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(threads);
}

BlasInfo blas_info() {
  BlasInfo info;
  Dl_info where{};
  if (void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_"); sgemm && dladdr(sgemm, &where) && where.dli_fname) {
    info.library = where.dli_fname;
  }
  info.kernel = call_openblas_string("openblas_get_corename");
  info.config = call_openblas_string("openblas_get_config");
  if (!info.kernel.empty()) {
    info.vendor = "OpenBLAS";
  } else if (info.library.find("/blas/") != std::string::npos) {
    info.vendor = "reference";
  } else {
    info.vendor = "unknown";
  }
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) info.coretype_env = env;
  info.threads = torch::get_num_threads();
  return info;
}

double measure_gemm_gflops(int m, int k, int n, int repeats) {
  torch::NoGradGuard no_grad;
  auto a = torch::randn({m, k});
  auto b = torch::randn({k, n});
  auto c = torch::mm(a, b);  // warm-up: thread pool start and kernel dispatch
  double best_seconds = 1e300;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    best_seconds = std::min(best_seconds,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * m * k * n / best_seconds / 1e9;
}

double expected_min_gemm_gflops(int threads) {
  // A tuned sgemm sustains well over 30 (AVX-512) / 20 (AVX2) GFLOP/s per core on any CPU of the
  // last decade; the reference BLAS gives ~3 and mis-matched OpenBLAS kernels ~9 per core here.
  const double per_core = cpu_has_flag("avx512f") ? 30.0 : cpu_has_flag("avx2") ? 20.0 : 5.0;
  return per_core * std::max(1, threads);
}

double warn_if_blas_slow() {
  const double gflops = measure_gemm_gflops(2048, 768, 768, 3);
  const BlasInfo info = blas_info();
  const double expected = expected_min_gemm_gflops(info.threads);
  if (gflops < expected) {
    std::cerr << fmt::format(
        "\n*** capaboost: SLOW LINEAR ALGEBRA: fp32 GEMM runs at {:.1f} GFLOP/s with {} thread(s); "
        "a tuned BLAS gives more than {:.0f} here.\n"
        "*** BLAS: {} (vendor {}, kernel '{}', OPENBLAS_CORETYPE='{}').\n"
        "*** Fix: `make deps` installs libopenblas0-openmp; on AVX-512 CPUs leave OPENBLAS_CORETYPE "
        "unset or set it to SkylakeX; set CAPABOOST_THREADS to the core count.\n\n",
        gflops, info.threads, expected, info.library.empty() ? "?" : info.library, info.vendor, info.kernel,
        info.coretype_env);
  }
  return gflops;
}

void initialize(int argc, char** argv) {
  ensure_fast_blas_kernels(argc, argv);
  configure_threads();
  if (std::getenv("CAPABOOST_SKIP_BLAS_CHECK") == nullptr) warn_if_blas_slow();
}

}  // namespace capaboost::runtime
