#pragma once
// What the SLURM scheduler says about array tasks: squeue for the tasks it still holds, sacct (where
// the cluster keeps accounting) for the ones that ended.

#include <map>
#include <string>
#include <vector>

namespace capaboost::harness {

/// "JOBID_TASK" → the scheduler's state word (PENDING, RUNNING, COMPLETED, TIMEOUT, …).
using ArrayTaskStates = std::map<std::string, std::string>;

/// Parses "ID|STATE" lines as squeue -o '%i|%T' and sacct -P -o JobID,State print them. Array ranges
/// ("12_[0-3,7%2]") are expanded; a state's qualifier ("CANCELLED by 0") is dropped; lines of other
/// jobs (no array index, job steps) are skipped.
ArrayTaskStates parse_task_states(const std::string& text);

/// The id of array task `task` of job `job_id`, as the scheduler writes it.
std::string array_task_id(const std::string& job_id, size_t task);

struct SlurmQueue {
  ArrayTaskStates queue;      ///< tasks squeue lists: pending, running, requeued, …
  ArrayTaskStates accounted;  ///< final states from sacct; empty when the cluster has no accounting
  bool accounting = false;    ///< sacct answered
};

/// Asks squeue (and sacct, if it works) about the array tasks of `job_ids`. Throws SetupError naming
/// the fix when squeue is missing or fails for any other reason than jobs that have ended.
SlurmQueue query_slurm(const std::vector<std::string>& job_ids);

/// The word `status` shows for a task the queue holds: "queued" or "running" (or the state, lower case).
std::string queue_word(const std::string& state);

}  // namespace capaboost::harness
