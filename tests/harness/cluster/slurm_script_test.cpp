#include "cluster/slurm_script.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

SlurmArrayJob example_job() {
  SlurmArrayJob job;
  job.job_name = "capaboost-table2";
  job.directory = "/results/slurm/table2-mini-x";
  job.working_directory = "/home/me/suite";
  job.run_list = "/results/slurm/table2-mini-x/runs.txt";
  job.task_command = {"/opt/capaboost", "run", "/specs/my spec.yaml", "--array-task", job.run_list};
  job.tasks = 12;
  return job;
}

}  // namespace

TEST_CASE("the sbatch script asks for one task per run with the resources given", "[harness][slurm]") {
  auto job = example_job();
  job.resources.partition = "gpu";
  job.resources.time = "02:00:00";
  job.resources.cpus_per_run = 4;
  job.resources.gpus_per_run = 1;
  job.resources.max_parallel = 3;
  job.resources.extra = {"--account=lab"};
  const std::string script = sbatch_script(job);
  CHECK(script.rfind("#!/bin/bash\n", 0) == 0);
  for (const char* line : {"#SBATCH --job-name=capaboost-table2\n", "#SBATCH --array=0-11%3\n",
                           "#SBATCH --cpus-per-task=4\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --partition=gpu\n",
                           "#SBATCH --time=02:00:00\n", "#SBATCH --chdir=/home/me/suite\n",
                           "#SBATCH --output=/results/slurm/table2-mini-x/logs/%A_%a.out\n", "#SBATCH --account=lab\n",
                           "#SBATCH --requeue\n", "export CAPABOOST_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n"}) {
    INFO(line);
    CHECK(script.find(line) != std::string::npos);
  }
  CHECK(script.find("exec /opt/capaboost run '/specs/my spec.yaml' --array-task /results/slurm/table2-mini-x/runs.txt\n") !=
        std::string::npos);
}

TEST_CASE("the sbatch script leaves out what was not asked for", "[harness][slurm]") {
  const std::string script = sbatch_script(example_job());
  CHECK(script.find("#SBATCH --array=0-11\n") != std::string::npos);
  CHECK(script.find("--gres") == std::string::npos);
  CHECK(script.find("--partition") == std::string::npos);
  CHECK(script.find("--time") == std::string::npos);
}

TEST_CASE("sbatch options #SBATCH lines cannot carry are refused with the fix", "[harness][slurm]") {
  auto job = example_job();
  job.directory = "/results with space/slurm";
  CHECK_THROWS_WITH(sbatch_script(job), Catch::Contains("white space"));
  job = example_job();
  job.tasks = 0;
  CHECK_THROWS_WITH(sbatch_script(job), Catch::Contains("at least one task"));
}
