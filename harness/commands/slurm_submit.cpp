#include "commands/slurm_submit.h"

#include "cluster/slurm_backend.h"
#include "commands/commands.h"
#include "plan/data_fingerprint.h"
#include "store/record_store.h"
#include "store/run_claims.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

namespace capaboost::harness {

int submit_sweep_to_slurm(const Sweep& sweep, const SweepOptions& options, const ExecuteOptions& execute_options,
                          const SlurmResources& resources, const std::string& device) {
  namespace fs = std::filesystem;
  RecordStore store(options.results_dir);
  const RunClaims claims(options.results_dir);
  const auto scheduled = scheduled_runs(options.results_dir, sweep.spec.name, options.profile);

  std::vector<std::string> keys;
  std::vector<RunRecord> recorded;  // array tasks write records only; this process indexes them
  int in_queue = 0, elsewhere = 0;
  std::set<std::string> seen;
  for (const auto& run : sweep.runs) {
    if (!seen.insert(run.key).second) continue;
    if (auto record = store.read(run.key)) recorded.push_back(std::move(*record));
    if (!needs_run(run, store, execute_options)) continue;
    if (const auto it = scheduled.find(run.key); it != scheduled.end() && it->second.active) {
      ++in_queue;
    } else if (claims.holder(run.key) && !claims.is_stale(claims.claim_path(run.key))) {
      ++elsewhere;  // a local `capaboost run` holds it
    } else {
      keys.push_back(run.key);
    }
  }
  if (!execute_options.dry_run) store.add_to_index(recorded);
  const std::string others = fmt::format("{} recorded, {} queued or running in SLURM{}", recorded.size(), in_queue,
                                         elsewhere ? fmt::format(", {} running in another process", elsewhere) : "");
  if (keys.empty()) {
    fmt::print("{}: nothing to submit ({}; profile '{}')\n", sweep.spec.name, others, options.profile);
    return int{kExitOk};
  }

  SlurmSubmitRequest request;
  request.results_dir = options.results_dir;
  request.spec = sweep.spec.name;
  request.profile = options.profile;
  request.keys = keys;
  request.resources = resources;
  request.dry_run = execute_options.dry_run;
  // Absolute paths: tasks start on other nodes, in the submission's working directory.
  request.task_command = {execute_options.self_exe, "run", fs::absolute(options.spec_path).string(),
                          "--profile", options.profile,
                          "--results", fs::absolute(options.results_dir).string(),
                          "--data-root", fs::absolute(resolve_data_root(options.data_root)).string(),
                          "--device", resources.gpus_per_run > 0 && device == "auto" ? "cuda" : device};
  if (execute_options.force) request.task_command.push_back("--force");
  if (execute_options.retry_failed) request.task_command.push_back("--retry-failed");
  const auto submitted = submit_array(request);
  if (execute_options.dry_run) {
    fmt::print("{}", submitted.script);
    fmt::print("# dry run: {} runs would be submitted ({}); nothing was written or submitted\n", keys.size(), others);
    return int{kExitOk};
  }
  fmt::print("{}: submitted {} run{} as SLURM job array {} ({}; profile '{}')\n  script {}/job.sbatch, task logs "
             "{}/logs/\n  follow with: capaboost status {} --profile {} --results {}\n",
             sweep.spec.name, keys.size(), keys.size() == 1 ? "" : "s", submitted.job_id, others, options.profile, submitted.directory,
             submitted.directory, options.spec_path, options.profile, options.results_dir);
  return int{kExitOk};
}

}  // namespace capaboost::harness
