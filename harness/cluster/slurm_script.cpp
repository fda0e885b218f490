#include "cluster/slurm_script.h"

#include "util/shell_quote.h"

#include <fmt/format.h>

#include <stdexcept>

namespace capaboost::harness {

std::string sbatch_script(const SlurmArrayJob& job) {
  if (job.tasks == 0) throw std::invalid_argument("sbatch_script: a job array needs at least one task");
  const auto& res = job.resources;
  std::string script = "#!/bin/bash\n";
  // #SBATCH lines are read by sbatch before the shell runs: their values are not shell words, and a
  // value with a space cannot be written there at all.
  const auto directive = [&](const std::string& option) {
    if (option.find_first_of(" \t\n") != std::string::npos) {
      throw std::invalid_argument(fmt::format("sbatch option '{}' contains white space, which #SBATCH lines cannot "
                                              "carry; use a path or value without spaces",
                                              option));
    }
    script += "#SBATCH " + option + "\n";
  };
  directive("--job-name=" + job.job_name);
  directive(fmt::format("--array=0-{}{}", job.tasks - 1, res.max_parallel > 0 ? fmt::format("%{}", res.max_parallel) : ""));
  directive("--ntasks=1");
  directive(fmt::format("--cpus-per-task={}", res.cpus_per_run));
  if (res.gpus_per_run > 0) directive(fmt::format("--gres=gpu:{}", res.gpus_per_run));
  if (!res.partition.empty()) directive("--partition=" + res.partition);
  if (!res.time.empty()) directive("--time=" + res.time);
  directive("--chdir=" + job.working_directory);
  directive("--output=" + job.directory + "/logs/%A_%a.out");
  // A preempted or failed node's task goes back to the queue; its claim (same SLURM job id) is taken over.
  directive("--requeue");
  for (const auto& option : res.extra) directive(option);
  script += "\n# One run per array task: the task's line of the run list names its run key. The record is\n"
            "# written atomically, so a task killed at any moment leaves the store as it was.\n";
  script += "export CAPABOOST_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n";
  script += "exec";
  for (const auto& arg : job.task_command) script += " " + shell_quote(arg);
  script += "\n";
  return script;
}

}  // namespace capaboost::harness
