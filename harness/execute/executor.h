#pragma once
// Running the missing runs of a sweep, in this process or in parallel worker processes.

#include "measures/measure_registry.h"
#include "plan/run_config.h"
#include "store/record_store.h"

#include <string>
#include <vector>

namespace capaboost::harness {

struct ExecuteOptions {
  std::string spec_name;
  std::string profile = "mini";
  bool force = false;         ///< rerun runs that already have a record
  bool retry_failed = false;  ///< rerun runs recorded as failed
  /// Rerun runs whose record another build made (store/record_build.h): a record of an older binary, of
  /// another CPU's kernels or device, or from before fingerprints, is replaced by one of this build.
  bool rerun_other_builds = false;
  /// The build class this sweep's runs get (store/record_build.h), for rerun_other_builds; execute() fills
  /// it (with its workers' thread count when it starts workers). Empty: this process's.
  std::string current_build;
  bool dry_run = false;       ///< say what would run, run nothing
  int jobs = 1;               ///< parallel worker processes
  int worker = -1;            ///< this process is worker `worker` of `jobs` (set by the parent)
  /// A cluster task's id that survives its requeues (SLURM_JOB_ID of an array task), for its claims
  /// (store/run_claims.h); empty for local runs.
  std::string scheduler_task;
  std::string self_exe;       ///< program to start workers with
  std::vector<std::string> worker_args;  ///< arguments that make a worker run the same sweep
  /// A TensorBoard log dir: every run that finishes with curves writes its event file there
  /// (tracking/tensorboard_export.h); empty: none.
  std::string tensorboard_dir;
  RunContext context;
};

struct ExecuteSummary {
  int skipped = 0;
  int succeeded = 0;
  int failed = 0;
  int elsewhere = 0;  ///< runs another process held a claim on (store/run_claims.h) and had not finished
  int finished_elsewhere = 0;  ///< runs this sweep planned that another process recorded while it ran
};

/// Whether `run` must run under `options` given what `store` holds.
bool needs_run(const RunConfig& run, const RecordStore& store, const ExecuteOptions& options);

/// Runs one run and records it (status ok, or failed with the reason); never throws for a failing
/// measure — a failed run is a record, and the sweep goes on. Indexes the record unless this process
/// is a worker (the parent indexes what its workers wrote).
RunRecord execute_run(const RunConfig& run, RecordStore& store, const ExecuteOptions& options,
                      const std::string& display_name);

/// Runs every run of `runs` that needs it. With jobs > 1 (and worker < 0) starts `jobs` worker
/// processes that share the threads. Every run is claimed before it runs (store/run_claims.h), so
/// workers, and other `capaboost run` processes on the same results directory, never run one run at
/// once: a worker starts with its own share of the list (every jobs-th run) and then takes any run
/// still unclaimed. Killed at any point, it loses no finished run, and the next call does only what is
/// missing (the claims of killed processes are taken over).
ExecuteSummary execute(const std::vector<RunConfig>& runs, RecordStore& store, const ExecuteOptions& options,
                       const std::vector<std::string>& axis_names);

}  // namespace capaboost::harness
