#include "cluster/slurm_queue.h"

#include "cluster/program_output.h"
#include "util/setup_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace capaboost::harness {
namespace {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// "0-3,7%2" → 0 1 2 3 7 (the %K throttle is not an index). Malformed parts are skipped.
std::vector<size_t> expand_indices(std::string ranges) {
  ranges = ranges.substr(0, ranges.find('%'));
  std::vector<size_t> indices;
  std::stringstream parts(ranges);
  std::string part;
  while (std::getline(parts, part, ',')) {
    try {
      const auto dash = part.find('-');
      const size_t first = std::stoul(part.substr(0, dash));
      const size_t last = dash == std::string::npos ? first : std::stoul(part.substr(dash + 1));
      for (size_t i = first; i <= last && i - first < 1000000; ++i) indices.push_back(i);
    } catch (const std::exception&) {
      continue;
    }
  }
  return indices;
}

}  // namespace

std::string array_task_id(const std::string& job_id, size_t task) { return fmt::format("{}_{}", job_id, task); }

ArrayTaskStates parse_task_states(const std::string& text) {
  ArrayTaskStates states;
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    const std::string id = line.substr(0, bar);
    std::string state = line.substr(bar + 1);
    state = state.substr(0, state.find_first_of(" \t\r"));
    const auto underscore = id.find('_');
    if (underscore == std::string::npos || id.find('.') != std::string::npos || state.empty()) continue;
    const std::string job = id.substr(0, underscore);
    const std::string index = id.substr(underscore + 1);
    if (!index.empty() && index.front() == '[') {
      for (const size_t task : expand_indices(index.substr(1, index.find(']') - 1))) states[array_task_id(job, task)] = state;
    } else if (!index.empty() && std::all_of(index.begin(), index.end(), [](unsigned char c) { return std::isdigit(c); })) {
      states[id] = state;
    }
  }
  return states;
}

SlurmQueue query_slurm(const std::vector<std::string>& job_ids) {
  SlurmQueue result;
  if (job_ids.empty()) return result;
  const std::string jobs = join(job_ids, ",");
  const auto squeue = run_program({"squeue", "--noheader", "--array", "--format=%i|%T", "--jobs=" + jobs});
  if (!squeue.started) {
    throw SetupError("squeue was not found: run status on a machine with the SLURM client commands (Debian "
                     "package slurm-client; `make deps` installs it), or on the cluster's login node");
  }
  // Jobs that have left the queue make squeue fail with "Invalid job id" when none of the list is left.
  if (squeue.exit_code != 0 && squeue.err.find("Invalid job id") == std::string::npos) {
    throw SetupError(fmt::format("squeue failed ({}): {}; check that the SLURM controller is reachable (SLURM_CONF, "
                                 "munge)", squeue.exit_code, squeue.err));
  }
  result.queue = parse_task_states(squeue.out);
  // Accounting is optional on a cluster: without slurmdbd, sacct fails and the records tell the rest.
  const auto sacct = run_program({"sacct", "--noheader", "--parsable2", "--allocations", "--format=JobID,State",
                                  "--jobs=" + jobs});
  if (sacct.started && sacct.exit_code == 0 && sacct.err.find("disabled") == std::string::npos) {
    result.accounting = true;
    result.accounted = parse_task_states(sacct.out);
  }
  return result;
}

std::string queue_word(const std::string& state) {
  static const std::set<std::string> queued{"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
                                            "RESV_DEL_HOLD", "SUSPENDED", "RESIZING"};
  static const std::set<std::string> running{"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING"};
  if (queued.count(state)) return "queued";
  if (running.count(state)) return "running";
  std::string word = state;
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  return word;
}

}  // namespace capaboost::harness
