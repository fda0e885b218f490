#include "cluster/slurm_backend.h"

#include "cluster/program_output.h"
#include "cluster/slurm_queue.h"
#include "cluster/slurm_submission.h"
#include "store/run_record.h"
#include "util/atomic_file.h"
#include "util/setup_error.h"
#include "util/path_name.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>

namespace capaboost::harness {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::map<std::string, ScheduledRun> scheduled_runs(const std::string& results_dir, const std::string& spec,
                                                   const std::string& profile) {
  const auto submissions = read_submissions(results_dir, spec, profile);
  std::map<std::string, ScheduledRun> runs;
  if (submissions.empty()) return runs;
  std::vector<std::string> job_ids;
  for (const auto& submission : submissions) job_ids.push_back(submission.job_id);
  const SlurmQueue queue = query_slurm(job_ids);
  // Oldest first, so a later submission of the same key overrides an earlier one — unless the earlier
  // task is still active (a resubmission with --force while it ran): the active one is what matters.
  for (const auto& submission : submissions) {
    for (size_t task = 0; task < submission.keys.size(); ++task) {
      ScheduledRun run;
      run.task_id = array_task_id(submission.job_id, task);
      run.log = submission.directory + "/logs/" + run.task_id + ".out";
      if (const auto held = queue.queue.find(run.task_id); held != queue.queue.end()) {
        run.word = queue_word(held->second);
        run.active = run.word == "queued" || run.word == "running";
      } else if (const auto ended = queue.accounted.find(run.task_id); ended != queue.accounted.end()) {
        run.word = queue_word(ended->second);
      } else {
        run.word = "left the queue";
      }
      auto& slot = runs[submission.keys[task]];
      if (!slot.active) slot = run;
    }
  }
  return runs;
}

SlurmSubmitResult submit_array(const SlurmSubmitRequest& request) {
  SlurmArrayJob job;
  job.job_name = "capaboost-" + request.spec;
  job.working_directory = std::filesystem::current_path().string();
  job.tasks = request.keys.size();
  job.resources = request.resources;
  check_path_name(request.spec, "spec name");
  check_path_name(request.profile, "profile");
  job.directory = request.dry_run ? std::filesystem::absolute(std::filesystem::path(request.results_dir) / "slurm" /
                                                              (request.spec + "-" + request.profile + "-DRY-RUN"))
                                        .string()
                                  : create_submission_directory(request.results_dir, request.spec, request.profile);
  job.run_list = run_list_path(job.directory);
  job.task_command = request.task_command;
  job.task_command.insert(job.task_command.end(), {"--array-task", job.run_list});

  SlurmSubmitResult result;
  result.script = sbatch_script(job);
  if (request.dry_run) return result;
  result.directory = job.directory;
  write_run_list(job.run_list, request.keys);
  const std::string script_path = (std::filesystem::path(job.directory) / "job.sbatch").string();
  write_file_atomically(script_path, result.script);

  const auto sbatch = run_program({"sbatch", "--parsable", script_path});
  if (!sbatch.started) {
    throw SetupError("sbatch was not found: submit from a machine with the SLURM client commands (the cluster's "
                     "login node; Debian package slurm-client, which `make deps` installs), or drop --backend slurm "
                     "to run here");
  }
  if (sbatch.exit_code != 0) {
    throw std::runtime_error(fmt::format("sbatch refused {} (exit {}): {}; nothing was submitted — fix the options "
                                         "(--partition, --time, --sbatch) and run again",
                                         script_path, sbatch.exit_code, trimmed(sbatch.err + sbatch.out)));
  }
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  result.job_id = trimmed(sbatch.out).substr(0, trimmed(sbatch.out).find(';'));
  write_submission({result.job_id, request.spec, request.profile, utc_now(), job.directory, request.keys});
  return result;
}

}  // namespace capaboost::harness
