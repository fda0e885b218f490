#include <fmt/format.h>

#include <cstdlib>
#include <torch/torch.h>

#include "commands/commands.h"
#include "execute/build_identity.h"
#include "execute/numerics_fingerprint.h"
#include "runtime/blas_runtime.h"
#include "runtime/precision.h"

namespace capaboost::harness {

Command env_command(CLI::App& app) {
  auto* sub = app.add_subcommand("env", "Show the linear-algebra setup and measure fp32 GEMM throughput");
  return {sub, [] {
            const auto info = runtime::blas_info();
            fmt::print("build         {} ({}, {})\n", this_build().short_text(), this_build().compiler,
                       this_build().build_type);
            const auto& numerics = this_process_numerics();
            fmt::print("numerics      {}\n", numerics.digest);
            for (const auto& [probe, digest] : numerics.probes) fmt::print("  {:<28} {}\n", probe, digest.substr(0, 16));
            fmt::print("libtorch      {}\n", TORCH_VERSION);
            fmt::print("blas library  {}\n", info.library.empty() ? "(not found)" : info.library);
            fmt::print("blas vendor   {}\n", info.vendor);
            fmt::print("blas kernel   {}\n", info.kernel.empty() ? "-" : info.kernel);
            fmt::print("blas config   {}\n", info.config.empty() ? "-" : info.config);
            fmt::print("OPENBLAS_CORETYPE  {}\n", info.coretype_env.empty() ? "(unset)" : info.coretype_env);
            const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
            fmt::print("OMP_WAIT_POLICY    {}\n", wait_policy != nullptr ? wait_policy : "(unset)");
            fmt::print("threads       {}\n", info.threads);
            const std::string bf16 = runtime::cpu_bf16_support();
            fmt::print("cpu bf16      {}\n", bf16.empty() ? "none (precision: bf16 is refused here)" : bf16);
            // device_count() is c10::DeviceIndex (int8_t) from LibTorch 2.x on: fmt would print a character.
            fmt::print("cuda          {}\n", torch::cuda::is_available()
                                                ? fmt::format("{} GPU(s); --device auto trains there",
                                                              static_cast<int>(torch::cuda::device_count()))
                                                : "none (this LibTorch is CPU-only or sees no GPU; docs/clusters-and-gpus.md)");
            const double gflops = runtime::measure_gemm_gflops();
            const double floor = runtime::expected_min_gemm_gflops(info.threads);
            fmt::print("sgemm 4096x768x768  {:.1f} GFLOP/s (slow below {:.0f}){}\n", gflops, floor,
                       gflops < floor ? "  <-- SLOW: run `make deps`; see docs/performance.md, Fast linear algebra" : "");
            return 0;
          }};
}

}  // namespace capaboost::harness
