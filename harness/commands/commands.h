#pragma once
// Sub-commands of the `capaboost` program. Each registers its options on the app and returns the
// action main runs once parsing succeeded (threads are configured by then).

#include <CLI/CLI.hpp>

#include <functional>

#include "util/setup_error.h"

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
  kExitSetup = kSetupErrorExitCode,  ///< a prerequisite of the machine is missing (util/setup_error.h)
};

/// `capaboost env`: the build identity and numerics fingerprint (with each probe's digest), BLAS library and
/// kernel, threads, measured GEMM GFLOP/s, LibTorch version.
Command env_command(CLI::App& app);

/// `capaboost plan SPEC [--format json]`: every run with key, name, whether it is cached, and (json)
/// its config with every effective parameter.
Command plan_command(CLI::App& app);
/// `capaboost run SPEC`: executes what is missing.
Command run_command(CLI::App& app);
/// `capaboost status [SPEC]`: counts of ok / failed / missing runs, and records no current run has.
Command status_command(CLI::App& app);
/// `capaboost reindex`: rebuilds the SQLite index from the JSON records.
Command reindex_command(CLI::App& app);
/// `capaboost fsck [--results DIR] [--repair]`: checks records against their digests, tuned states, the
/// index and claims; --repair moves what fails to quarantine/ and rebuilds the index (store/store_check.h).
Command fsck_command(CLI::App& app);
/// `capaboost report SPEC`: LaTeX, CSV and Markdown tables and figures from stored records.
Command report_command(CLI::App& app);
/// `capaboost methods`, `measures`, `tasks`, `models`: what specs may name, with every parameter.
Command methods_command(CLI::App& app);
Command measures_command(CLI::App& app);
Command tasks_command(CLI::App& app);
Command models_command(CLI::App& app);
/// `capaboost backbone [--profile P] [--cache DIR]`: the offline pre-trained encoder's directory.
Command backbone_command(CLI::App& app);
/// `capaboost tensorboard SPEC DIR`: the recorded runs' curves as TensorBoard event files (tracking/).
Command tensorboard_command(CLI::App& app);
/// `capaboost export-mlflow SPEC DIR`: the recorded runs as an MLflow experiment in a file store (tracking/).
Command export_mlflow_command(CLI::App& app);
/// `capaboost export RUN_KEY DIR`: a finished LoRA or CapaBoost-LoRA run as a Hugging Face PEFT adapter.
Command export_command(CLI::App& app);
/// `capaboost gallery [--results DIR] [--out FILE]`: results/README.md, every curated folder's figures,
/// claims and render commit on one page (report/gallery.h).
Command gallery_command(CLI::App& app);
/// `capaboost verify FOLDER...`: rebuilds each curated folder's report from its records.tar.xz with
/// today's report code and fails, naming the file and cell, on any difference (commands/verify_command.cpp).
Command verify_command(CLI::App& app);
/// `capaboost squad-eval DATA PREDICTIONS [--na-probs NA] [--na-threshold T]`: the official SQuAD scores.
Command squad_eval_command(CLI::App& app);

}  // namespace capaboost::harness
