#pragma once
// Sweeps on a SLURM cluster: the missing runs go out as one job array (one run per task, records
// written by the tasks), and what the scheduler holds is read back for `status` and for the next
// submission, which sends only runs that are neither recorded nor queued nor running.

#include "cluster/slurm_script.h"

#include <map>
#include <string>
#include <vector>

namespace capaboost::harness {

/// Where a submitted run stands in the scheduler (its latest submission's task).
struct ScheduledRun {
  std::string task_id;  ///< JOBID_TASK
  std::string word;     ///< "queued", "running", the accounted end state ("timeout", …), or "left the queue"
  std::string log;      ///< the task's output file
  bool active = false;  ///< queued or running: submitting it again would run it twice
};

/// The submitted runs of `spec` under `profile` in `results_dir`, by key (empty when none was
/// submitted; then the scheduler is not asked).
std::map<std::string, ScheduledRun> scheduled_runs(const std::string& results_dir, const std::string& spec,
                                                   const std::string& profile);

struct SlurmSubmitRequest {
  std::string results_dir;
  std::string spec;
  std::string profile;
  std::vector<std::string> keys;          ///< the runs to submit, in order
  std::vector<std::string> task_command;  ///< `capaboost … run …` for every task; `--array-task LIST` is appended
  SlurmResources resources;
  bool dry_run = false;  ///< print the script, write and submit nothing
};

struct SlurmSubmitResult {
  std::string job_id;     ///< empty for a dry run
  std::string directory;  ///< the submission's folder (empty for a dry run)
  std::string script;
};

/// Writes the run list and the sbatch script, submits the array with `sbatch --parsable` and records
/// the submission. Returns at once: the tasks run when the scheduler starts them. Throws SetupError
/// when sbatch is missing and a runtime_error carrying sbatch's message when it refuses the job.
SlurmSubmitResult submit_array(const SlurmSubmitRequest& request);

}  // namespace capaboost::harness
