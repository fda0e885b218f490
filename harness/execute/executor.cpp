#include "execute/executor.h"

#include "backbones/backbone_registry.h"
#include "execute/build_identity.h"
#include "execute/numerics_fingerprint.h"
#include "execute/provenance.h"
#include "plan/run_key.h"
#include "runtime/device.h"
#include "runtime/process_memory.h"
#include "store/record_build.h"
#include "store/run_claims.h"
#include "store/run_scalars.h"
#include "tracking/tensorboard_export.h"
#include "util/setup_error.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

namespace capaboost::harness {
namespace {

// Contract errors carry a C++ backtrace; a record keeps the message a user can act on.
std::string reason_of(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

// Builds each offline encoder the runs name that the cache lacks, once, in this process and with all
// its threads: workers started first would each build it at once, one thread each, and all but one
// build would be thrown away by the rename into the cache.
void prepare_backbones(const std::vector<const RunConfig*>& runs, const RunContext& context) {
  std::set<std::string> models;
  for (const auto* run : runs) {
    const auto model = run->config.find("model");
    if (model != run->config.end() && model->is_string()) models.insert(model->get<std::string>());
  }
  for (const auto& model : models) prepare_backbone(model, BackboneContext{context.data_root});
}

// Names the sweep whose worker wrote a record (provenance "sweep"), so that its parent can tell its
// workers' records from those of another sweep on the same results folder.
constexpr const char* kSweepIdVariable = "CAPABOOST_SWEEP_ID";

// Starts `jobs` copies of this program as workers of sweep `sweep_id` and waits for them (what they did
// is in the store). Returns whether a worker stopped on a set-up error (it printed the message).
// The torch threads each of `jobs` workers gets: the cores shared out.
int worker_threads(int jobs) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / jobs);
}

bool run_workers(const ExecuteOptions& options, const std::string& sweep_id) {
  const int threads = worker_threads(options.jobs);
  std::vector<pid_t> children;
  const pid_t parent = getpid();
  for (int worker = 0; worker < options.jobs; ++worker) {
    const pid_t pid = fork();
    if (pid == 0) {
      // A worker does not outlive the sweep that started it: a parent stopped by SIGTERM or SIGINT
      // (timeout(1), a cancelled job, `kill`) used to leave its workers claiming and running the rest of
      // the sweep. Now they get SIGTERM; their runs in progress are lost, as the parent's own would be,
      // and every finished record stays. The flag survives execv; a parent gone before it was set is
      // caught by the second check.
      if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(128 + SIGTERM);
      std::vector<std::string> args{options.self_exe};
      args.insert(args.end(), options.worker_args.begin(), options.worker_args.end());
      args.push_back(fmt::format("--worker={}/{}", worker, options.jobs));
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      setenv("CAPABOOST_THREADS", std::to_string(threads).c_str(), 1);
      setenv(kSweepIdVariable, sweep_id.c_str(), 1);
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
  if (options.retry_failed && !record->ok()) return true;
  if (!options.rerun_other_builds) return false;
  const std::string current =
      options.current_build.empty()
          ? current_build_id(this_process_numerics().digest, runtime::device_label(options.context.device))
          : options.current_build;
  return record_build(*record).id != current;
}

namespace {

// A record of `run` before its outcome: who, what, which code, which data.
RunRecord start_record(const RunConfig& run, const ExecuteOptions& options, const std::string& display_name) {
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
  return record;
}

// Sets the outcome: ok with the metrics, unless a metric is not finite (then failed).
void set_outcome(RunRecord& record, const MeasureResult& result) {
  for (const auto& [name, value] : result.metrics.items()) {
    if (value.is_number() && !std::isfinite(value.get<double>())) {
      throw std::runtime_error(fmt::format("metric '{}' is not finite", name));
    }
  }
  record.status = RunStatus::kOk;
  record.metrics = result.metrics;
  record.details = result.details;
}

void set_failure(RunRecord& record, const std::string& reason, const RunContext& context) {
  record.status = RunStatus::kFailed;
  record.reason = reason;
  // A failed run's weights and curves (a finite loss, then a non-finite metric) belong to no result.
  std::remove(context.tuned_state_path.c_str());
  std::remove(context.scalars_path.c_str());
}

// Stamps time, memory and provenance, and writes the record (indexed unless this is a worker).
void finish_record(RunRecord& record, const RunConfig& run, double seconds, RecordStore& store,
                   const ExecuteOptions& options) {
  record.wall_time_s = seconds;
  record.peak_memory_mb = peak_rss_mib();
  record.finished_at = utc_now();
  record.provenance = provenance();
  record.provenance["seed"] = run.config.value("seed", nlohmann::json());
  record.provenance["device"] = runtime::device_label(options.context.device);
  if (const char* sweep = std::getenv(kSweepIdVariable); sweep != nullptr && options.worker >= 0) {
    record.provenance["sweep"] = sweep;
  }
  store.write(record);
  if (options.worker < 0) store.add_to_index({record});
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RunRecord execute_run(const RunConfig& run, RecordStore& store, const ExecuteOptions& options,
                      const std::string& display_name) {
  RunRecord record = start_record(run, options, display_name);
  const auto start = std::chrono::steady_clock::now();
  RunContext context = options.context;
  context.tuned_state_path = store.tuned_state_path(run.key);
  context.scalars_path = store.scalars_path(run.key);
  try {
    set_outcome(record, find_measure(run.measure).run(Parameters(run.config), context));
  } catch (const SetupError&) {
    throw;  // the machine lacks something: no experiment ran, so nothing is recorded
  } catch (const std::exception& e) {
    set_failure(record, reason_of(e), context);
  }
  // The tuned state's digest travels in the (sealed) record: `fsck` and `export` check the file by it.
  if (record.ok() && std::filesystem::exists(context.tuned_state_path)) {
    record.tuned_state_sha256 = sha256_file_hex(context.tuned_state_path);
  }
  finish_record(record, run, seconds_since(start), store, options);
  if (!options.tensorboard_dir.empty() && record.ok() && has_run_scalars(record)) {
    // The record is written: an event file that cannot be written costs a warning, never the run
    // (`capaboost tensorboard` writes it again from the record).
    try {
      write_tensorboard_run(options.tensorboard_dir, store, record);
    } catch (const std::exception& e) {
      fmt::print(stderr, "warning: run {}: no TensorBoard event file: {}\n", run.key.substr(0, 12), e.what());
    }
  }
  return record;
}

ExecuteSummary execute(const std::vector<RunConfig>& runs, RecordStore& store, const ExecuteOptions& given_options,
                       const std::vector<std::string>& axis_names) {
  store.remove_stale_temporaries();
  // The fingerprint is taken before any run, with torch's generator put back as it was: every record of
  // this process carries it (execute/provenance.h). A parent that starts workers asks for theirs: the
  // thread count is part of the arithmetic (execute/numerics_fingerprint.h).
  ExecuteOptions options = given_options;
  const bool starts_workers = options.jobs > 1 && options.worker < 0;
  const NumericsFingerprint numerics =
      starts_workers ? numerics_with_threads(worker_threads(options.jobs)) : this_process_numerics();
  const std::string device = runtime::device_label(options.context.device);
  if (options.current_build.empty()) options.current_build = current_build_id(numerics.digest, device);
  if (options.worker < 0 && !options.dry_run) {
    fmt::print("build {}, numerics {} on {}{}\n", this_build().short_text(), numerics.digest.substr(0, 12), device,
               starts_workers ? fmt::format(" ({} workers of {} thread(s))", options.jobs, worker_threads(options.jobs))
                              : "");
  }
  RunClaims claims(store.results_dir(), RunClaims::kDefaultLease, options.scheduler_task);
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
    prepare_backbones(pending, options.context);
    const std::string sweep_id = fmt::format("{}:{}", getpid(), std::chrono::system_clock::now().time_since_epoch().count());
    if (run_workers(options, sweep_id)) {
      throw SetupError("a worker stopped on a missing prerequisite (its message is above); the runs it had not "
                       "finished have no record");
    }
    // The records are the truth about what the workers did: a run whose worker died has none and
    // counts as failed, like one recorded as failed, unless another process holds it now; a record
    // another sweep wrote meanwhile is its run, not ours. This process alone indexes them.
    std::vector<RunRecord> written;
    for (const auto* run : pending) {
      auto record = store.read(run->key);
      if (!record && claims.holder(run->key) && !claims.is_stale(claims.claim_path(run->key))) {
        ++summary.elsewhere;
        continue;
      }
      if (record && record->provenance.value("sweep", std::string()) != sweep_id) {
        ++summary.finished_elsewhere;
      } else {
        ++(record && record->ok() ? summary.succeeded : summary.failed);
      }
      if (record) written.push_back(std::move(*record));
    }
    store.add_to_index(written);
    return summary;
  }
  int index = 0;
  for (const auto* run : pending) {
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
    fmt::print("[{}/{}] {}  {}\n", ++index, pending.size(), run->key.substr(0, 12), name);
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
