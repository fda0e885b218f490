#pragma once
// A sweep's submissions to SLURM, kept under <results>/slurm/<spec>-<profile>-<time>-<pid>/: the run
// list (task i runs line i+1), the sbatch script, the tasks' logs, and submission.json once sbatch
// accepted it. `status` reads them back to tell queued and running runs from missing ones.

#include <string>
#include <vector>

namespace capaboost::harness {

struct SlurmSubmission {
  std::string job_id;
  std::string spec;
  std::string profile;
  std::string submitted_at;  ///< UTC, ISO 8601
  std::string directory;     ///< absolute
  std::vector<std::string> keys;  ///< array task i runs keys[i]
};

/// Creates a new submission folder (with logs/) for `spec` and `profile` and returns its absolute path.
std::string create_submission_directory(const std::string& results_dir, const std::string& spec,
                                        const std::string& profile);

/// The run list's path inside a submission folder.
std::string run_list_path(const std::string& directory);

/// Writes `keys`, one per line, to `path` atomically.
void write_run_list(const std::string& path, const std::vector<std::string>& keys);

/// The key on line `task`+1 of the run list at `path`; throws naming the file when it has no such line.
std::string run_list_key(const std::string& path, size_t task);

/// Writes the submission's submission.json (atomically) into its folder.
void write_submission(const SlurmSubmission& submission);

/// The recorded submissions of `spec` under `profile`, oldest first. A folder without submission.json
/// (sbatch refused it) is skipped; an unreadable submission.json throws naming the file.
std::vector<SlurmSubmission> read_submissions(const std::string& results_dir, const std::string& spec,
                                              const std::string& profile);

}  // namespace capaboost::harness
