#pragma once
// The `sbatch` script of a SLURM job array that runs a sweep's missing runs, one run per array task.

#include <string>
#include <vector>

namespace capaboost::harness {

/// What each array task asks of the cluster, and how many tasks run at once.
struct SlurmResources {
  std::string partition;                 ///< empty: the cluster's default partition
  std::string time;                      ///< time limit per task (sbatch --time); empty: the partition's
  int cpus_per_run = 2;                  ///< cores per task; the task uses them as torch threads
  int gpus_per_run = 0;                  ///< GPUs per task (sbatch --gres=gpu:N)
  int max_parallel = 0;                  ///< at most this many tasks at once (the array's %K); 0: no limit
  std::vector<std::string> extra;        ///< further sbatch options, one per line (--account=…, --mem=…)
};

/// One job array: `tasks` tasks, task i running `task_command` with the run list's line i+1.
struct SlurmArrayJob {
  std::string job_name;
  std::string directory;          ///< the submission's folder (absolute): run list, script, logs/
  std::string working_directory;  ///< where tasks start (absolute)
  std::string run_list;           ///< file with one run key per line (absolute)
  std::vector<std::string> task_command;  ///< the `capaboost run … --array-task RUN_LIST` command line
  size_t tasks = 0;
  SlurmResources resources;
};

/// The script: #SBATCH lines (array 0..tasks-1, name, output under logs/, resources), then the task
/// command with CAPABOOST_THREADS set to the task's cores. Each argument is quoted for the shell.
std::string sbatch_script(const SlurmArrayJob& job);

}  // namespace capaboost::harness
