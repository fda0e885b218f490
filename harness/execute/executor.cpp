#include "execute/executor.h"

#include "execute/provenance.h"
#include "plan/run_key.h"
#include "runtime/process_memory.h"
#include "store/run_claims.h"
#include "util/setup_error.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <set>
#include <thread>

namespace capaboost::harness {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// Contract errors carry a C++ backtrace; a record keeps the message a user can act on.
std::string reason_of(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

// Starts `jobs` copies of this program as workers and waits for them (what they did is in the store).
// Returns whether a worker stopped on a set-up error (it printed the message).
bool run_workers(const ExecuteOptions& options) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max(1, cores / options.jobs);
  std::vector<pid_t> children;
  for (int worker = 0; worker < options.jobs; ++worker) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<std::string> args{options.self_exe};
      args.insert(args.end(), options.worker_args.begin(), options.worker_args.end());
      args.push_back(fmt::format("--worker={}/{}", worker, options.jobs));
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      setenv("CAPABOOST_THREADS", std::to_string(threads).c_str(), 1);
      execv(options.self_exe.c_str(), argv.data());
      std::perror("capaboost: starting a worker failed");
      _exit(127);
    }
    if (pid < 0) throw std::runtime_error("capaboost: fork failed while starting workers");
    children.push_back(pid);
  }
  bool setup_stopped = false;
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    setup_stopped |= WIFEXITED(status) && WEXITSTATUS(status) == kSetupErrorExitCode;
  }
  return setup_stopped;
}

}  // namespace

bool needs_run(const RunConfig& run, const RecordStore& store, const ExecuteOptions& options) {
  if (options.force) return true;
  const auto record = store.read(run.key);
  if (!record) return true;
  return options.retry_failed && !record->ok();
}

RunRecord execute_run(const RunConfig& run, RecordStore& store, const ExecuteOptions& options,
                      const std::string& display_name) {
  RunRecord record;
  record.key = run.key;
  record.spec = options.spec_name;
  record.label = run.label;
  record.name = display_name;
  record.measure = run.measure;
  record.profile = options.profile;
  record.config = run.config;
  record.data_fingerprint = run.data_fingerprint;
  record.model_fingerprint = run.model_fingerprint;
  record.code_version = kCodeVersion;
  const auto start = std::chrono::steady_clock::now();
  RunContext context = options.context;
  context.tuned_state_path = store.tuned_state_path(run.key);
  try {
    const auto result = find_measure(run.measure).run(Parameters(run.config), context);
    for (const auto& [name, value] : result.metrics.items()) {
      if (value.is_number() && !std::isfinite(value.get<double>())) {
        throw std::runtime_error(fmt::format("metric '{}' is not finite", name));
      }
    }
    record.status = RunStatus::kOk;
    record.metrics = result.metrics;
    record.details = result.details;
  } catch (const SetupError&) {
    throw;  // the machine lacks something: no experiment ran, so nothing is recorded
  } catch (const std::exception& e) {
    record.status = RunStatus::kFailed;
    record.reason = reason_of(e);
    // A failed run's weights (a finite loss, then a non-finite metric) belong to no result.
    std::remove(context.tuned_state_path.c_str());
  }
  record.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.peak_memory_mb = peak_rss_mib();
  record.finished_at = utc_now();
  record.provenance = provenance();
  record.provenance["seed"] = run.config.value("seed", nlohmann::json());
  store.write(record);
  if (options.worker < 0) store.add_to_index({record});
  return record;
}

ExecuteSummary execute(const std::vector<RunConfig>& runs, RecordStore& store, const ExecuteOptions& options,
                       const std::vector<std::string>& axis_names) {
  store.remove_stale_temporaries();
  RunClaims claims(store.results_dir());
  if (options.worker < 0) claims.remove_stale();
  ExecuteSummary summary;
  std::vector<const RunConfig*> pending, others;
  std::set<std::string> seen;
  int64_t unique_index = 0;
  for (const auto& run : runs) {
    if (!seen.insert(run.key).second) continue;  // two rows can resolve to the same run
    // A worker's share is taken from the full run list, not from what is still missing: workers start
    // at different moments, and a list filtered by the store would differ between them. The rest of the
    // list follows its share, for the runs other workers have not claimed yet.
    const bool mine = options.worker < 0 || unique_index++ % options.jobs == options.worker;
    if (needs_run(run, store, options)) {
      // Forced reruns stay in their share: a run another worker finished would need running again.
      if (mine || !options.force) (mine ? pending : others).push_back(&run);
    } else if (mine) {
      ++summary.skipped;
    }
  }
  pending.insert(pending.end(), others.begin(), others.end());
  if (options.dry_run) {
    for (const auto* run : pending) fmt::print("would run  {}  {}\n", run->key.substr(0, 12), run->display_name(axis_names));
    return summary;
  }
  if (options.jobs > 1 && options.worker < 0 && pending.size() > 1) {
    fmt::print("{} runs to do, {} finished; starting {} workers\n", pending.size(), summary.skipped, options.jobs);
    std::fflush(stdout);
    if (run_workers(options)) {
      throw SetupError("a worker stopped on a missing prerequisite (its message is above); the runs it had not "
                       "finished have no record");
    }
    // The records are the truth about what the workers did: a run whose worker died has none and
    // counts as failed, like one recorded as failed, unless another process holds it now. This
    // process alone indexes them.
    std::vector<RunRecord> written;
    for (const auto* run : pending) {
      auto record = store.read(run->key);
      if (!record && claims.holder(run->key) && !claims.is_stale(claims.claim_path(run->key))) {
        ++summary.elsewhere;
        continue;
      }
      ++(record && record->ok() ? summary.succeeded : summary.failed);
      if (record) written.push_back(std::move(*record));
    }
    store.add_to_index(written);
    return summary;
  }
  int index = 0;
  for (const auto* run : pending) {
    const int mine = index++;
    const auto claim = claims.try_claim(run->key);
    if (!claim) {
      ++summary.elsewhere;  // another worker or process runs it
      continue;
    }
    // Finished by another process between planning and the claim.
    if (!needs_run(*run, store, options)) {
      ++summary.skipped;
      continue;
    }
    const std::string name = run->display_name(axis_names);
    fmt::print("[{}/{}] {}  {}\n", mine + 1, pending.size(), run->key.substr(0, 12), name);
    std::fflush(stdout);
    const RunRecord record = execute_run(*run, store, options, name);
    if (record.ok()) {
      ++summary.succeeded;
      fmt::print("        ok in {:.1f}s  {}\n", record.wall_time_s, record.metrics.dump());
    } else {
      ++summary.failed;
      fmt::print("        FAILED: {}\n", record.reason);
    }
    std::fflush(stdout);
  }
  return summary;
}

}  // namespace capaboost::harness
