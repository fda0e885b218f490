#pragma once
// Sub-commands of the `capaboost` program. Each registers its options on the app and returns the
// action main runs once parsing succeeded (threads are configured by then).

#include <CLI/CLI.hpp>
#include <functional>

namespace capaboost::harness {

struct Command {
  CLI::App* app;             ///< the sub-command, to ask whether it was chosen
  std::function<int()> run;  ///< returns the process exit code
};

/// `capaboost env`: BLAS library and kernel, threads, measured GEMM GFLOP/s, LibTorch version.
Command env_command(CLI::App& app);

/// `capaboost rank-table`: the rank pattern of the paper's Table 1 (LoRA vs CapaBoost-LoRA, d ∈ {2, 4},
/// r ∈ {8, 16, 32, 64}) measured on RoBERTa-base-shaped sites with random nonzero factors.
Command rank_table_command(CLI::App& app);

}  // namespace capaboost::harness
