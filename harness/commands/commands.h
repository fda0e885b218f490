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

/// Exit codes shared by the sub-commands.
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,        ///< a run or command failed
  kExitBadSpec = 3,      ///< the spec did not validate (nothing ran)
  kExitIncomplete = 4,   ///< `report` or `status`: some runs are missing or failed
};

/// `capaboost env`: BLAS library and kernel, threads, measured GEMM GFLOP/s, LibTorch version.
Command env_command(CLI::App& app);

/// `capaboost rank-table`: the rank pattern of the paper's Table 1 (LoRA vs CapaBoost-LoRA, d ∈ {2, 4},
/// r ∈ {8, 16, 32, 64}) measured on RoBERTa-base-shaped sites with random nonzero factors.
Command rank_table_command(CLI::App& app);

/// `capaboost plan SPEC`: every run with key, name and whether it is cached.
Command plan_command(CLI::App& app);
/// `capaboost run SPEC`: executes what is missing.
Command run_command(CLI::App& app);
/// `capaboost status [SPEC]`: counts of ok / failed / missing runs.
Command status_command(CLI::App& app);
/// `capaboost reindex`: rebuilds the SQLite index from the JSON records.
Command reindex_command(CLI::App& app);
/// `capaboost report SPEC`: LaTeX, CSV and Markdown tables and figures from stored records.
Command report_command(CLI::App& app);
/// `capaboost methods` / `capaboost measures`: what specs may name.
Command methods_command(CLI::App& app);
/// `capaboost backbone [--profile P] [--cache DIR]`: the offline pre-trained encoder's directory.
Command backbone_command(CLI::App& app);

}  // namespace capaboost::harness
