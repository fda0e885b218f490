#include "cluster/slurm_backend.h"
#include "cluster/slurm_submission.h"
#include "commands/commands.h"
#include "commands/slurm_submit.h"
#include "commands/sweep_options.h"
#include "execute/executor.h"
#include "execute/numerics_fingerprint.h"
#include "plan/data_fingerprint.h"
#include "runtime/device.h"
#include "store/record_build.h"
#include "store/record_store.h"
#include "store/run_claims.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

namespace capaboost::harness {

Command plan_command(CLI::App& app) {
  auto* sub = app.add_subcommand("plan", "List every run of a spec: key, name, cached or not, and (json) its config");
  auto options = std::make_shared<SweepOptions>();
  auto format = std::make_shared<std::string>("text");
  add_sweep_options(sub, *options);
  sub->add_option("--format", *format,
                  "text, or json: one JSON object per run and line, {key, name, label, measure, cached, status, "
                  "config} with every effective parameter in config")
      ->check(CLI::IsMember({"text", "json"}));
  return {sub, [options, format] {
            const auto sweep = load_sweep(*options);
            const RecordStore store(options->results_dir);
            int recorded = 0;
            for (const auto& run : sweep.runs) {
              const auto record = store.read(run.key);
              const std::string state = record ? to_string(record->status) : "missing";
              recorded += record.has_value();
              if (*format == "json") {
                const nlohmann::json line = {{"key", run.key},
                                             {"name", run.display_name(sweep.axes)},
                                             {"label", run.label},
                                             {"measure", run.measure},
                                             {"cached", record.has_value() && record->ok()},
                                             {"status", state},
                                             {"config", run.config}};
                fmt::print("{}\n", line.dump());
              } else {
                fmt::print("{}  {:<8} {}\n", run.key.substr(0, 12), state, run.display_name(sweep.axes));
              }
            }
            if (*format == "text") {
              fmt::print("{}: {} runs under profile '{}', {} recorded, {} to run\n", sweep.spec.name, sweep.runs.size(),
                         options->profile, recorded, sweep.runs.size() - recorded);
            }
            return int{kExitOk};
          }};
}

Command run_command(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "Execute the runs of a spec that have no record yet");
  auto options = std::make_shared<SweepOptions>();
  auto execute_options = std::make_shared<ExecuteOptions>();
  auto worker = std::make_shared<std::string>();
  auto array_task = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("local");
  auto slurm = std::make_shared<SlurmResources>();
  auto device = std::make_shared<std::string>("auto");
  add_sweep_options(sub, *options);
  sub->add_flag("--force", execute_options->force, "rerun runs that already have a record");
  sub->add_flag("--retry-failed", execute_options->retry_failed, "rerun runs recorded as failed");
  sub->add_flag("--rerun-other-builds", execute_options->rerun_other_builds,
                "rerun runs whose record another build made (another numerics fingerprint or device, or a record "
                "from before fingerprints), so that every pair compares runs of this build");
  sub->add_flag("--dry-run", execute_options->dry_run, "list what would run and stop");
  sub->add_option("--tensorboard", execute_options->tensorboard_dir,
                  "write each finished run's curves as a TensorBoard event file under DIR/<row>/<task>-seed<s>-<key>");
  sub->add_option("--jobs,-j", execute_options->jobs, "parallel worker processes (threads are split among them)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--device", *device, "cpu, cuda, or auto: cuda when this LibTorch sees a GPU (docs/clusters-and-gpus.md)")
      ->check(CLI::IsMember(runtime::device_names()));
  sub->add_option("--worker", *worker, "internal: run share i of n (i/n)")->group("");
  sub->add_option("--array-task", *array_task, "internal: run the key on line $SLURM_ARRAY_TASK_ID+1 of this list")
      ->group("");
  sub->add_option("--backend", *backend, "local (run here), or slurm (submit a job array and return)")
      ->check(CLI::IsMember({"local", "slurm"}));
  const std::string slurm_group = "SLURM (--backend slurm)";
  sub->add_option("--partition", slurm->partition, "partition to submit to (default: the cluster's)")->group(slurm_group);
  sub->add_option("--time", slurm->time, "time limit per run, as sbatch takes it (e.g. 02:00:00)")->group(slurm_group);
  sub->add_option("--cpus-per-run", slurm->cpus_per_run, "cores per run (its torch threads)")
      ->check(CLI::Range(1, 1024))->group(slurm_group);
  sub->add_option("--gpus-per-run", slurm->gpus_per_run, "GPUs per run (--gres=gpu:N)")
      ->check(CLI::Range(0, 64))->group(slurm_group);
  sub->add_option("--max-parallel", slurm->max_parallel, "at most this many runs at once (0: no limit)")
      ->check(CLI::Range(0, 100000))->group(slurm_group);
  sub->add_option("--sbatch", slurm->extra, "further sbatch option, repeatable (e.g. --sbatch=--account=lab)")
      ->group(slurm_group);
  return {sub, [options, execute_options, worker, array_task, backend, slurm, device] {
            auto sweep = load_sweep(*options);
            RecordStore store(options->results_dir);
            auto opts = *execute_options;
            opts.spec_name = sweep.spec.name;
            opts.profile = options->profile;
            opts.context.data_root = resolve_data_root(options->data_root);
            opts.context.interactive = isatty(STDOUT_FILENO);
            // Resolved where the runs execute: a submitting login node may have no GPU.
            if (*backend == "local") opts.context.device = runtime::resolve_device(*device);
            if (!worker->empty()) {
              int i = 0, n = 0;
              if (std::sscanf(worker->c_str(), "%d/%d", &i, &n) != 2 || n < 1 || i < 0 || i >= n) {
                throw std::invalid_argument("--worker must be i/n");
              }
              opts.worker = i;
              opts.jobs = n;
            }
            if (!array_task->empty()) {
              // One array task of a SLURM submission: its run only, written as a record and left to the
              // submitting side to index (like a worker's).
              const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
              if (task == nullptr) throw std::invalid_argument("--array-task runs inside a SLURM array task only");
              const std::string key = run_list_key(*array_task, std::stoul(task));
              std::vector<RunConfig> mine;
              for (const auto& run : sweep.runs) {
                if (run.key == key && mine.empty()) mine.push_back(run);
              }
              if (mine.empty()) {
                throw std::runtime_error(fmt::format(
                    "run {} of {} is not a run of {} under profile '{}' any more (the spec or the code changed "
                    "after submission); submit again with `capaboost run {} --backend slurm`",
                    key, *array_task, options->spec_path, options->profile, options->spec_path));
              }
              sweep.runs = std::move(mine);
              opts.worker = 0;
              opts.jobs = 1;
              if (const char* job = std::getenv("SLURM_JOB_ID")) opts.scheduler_task = job;
            }
            opts.self_exe = std::filesystem::read_symlink("/proc/self/exe").string();
            if (*backend == "slurm") {
              if (!opts.tensorboard_dir.empty()) {
                throw std::invalid_argument("--tensorboard writes each run's event file where it finishes, which a SLURM "
                                            "array task does on its node; after the array, `capaboost tensorboard " +
                                            options->spec_path + " --profile " + options->profile + " DIR` writes them all");
              }
              return submit_sweep_to_slurm(sweep, *options, opts, *slurm, *device);
            }
            opts.worker_args = {"run", options->spec_path, "--profile", options->profile, "--results",
                                options->results_dir};
            if (!options->data_root.empty()) opts.worker_args.insert(opts.worker_args.end(), {"--data-root", options->data_root});
            // Workers plan the sweep again and take their share of its runs: the same runs, seeds included.
            if (!options->seeds.empty()) {
              opts.worker_args.insert(opts.worker_args.end(), {"--seeds", fmt::format("{}", fmt::join(options->seeds, ","))});
            }
            opts.worker_args.insert(opts.worker_args.end(), {"--device", *device});
            if (opts.force) opts.worker_args.push_back("--force");
            if (opts.retry_failed) opts.worker_args.push_back("--retry-failed");
            if (opts.rerun_other_builds) opts.worker_args.push_back("--rerun-other-builds");
            if (!opts.tensorboard_dir.empty()) opts.worker_args.insert(opts.worker_args.end(), {"--tensorboard", opts.tensorboard_dir});
            const auto summary = execute(sweep.runs, store, opts, sweep.axes);
            if (opts.worker < 0 || !array_task->empty()) {
              fmt::print("{}: {} run, {} failed, {} already recorded{}{} (profile '{}')\n", sweep.spec.name,
                         summary.succeeded, summary.failed, summary.skipped,
                         summary.finished_elsewhere
                             ? fmt::format(", {} finished by another process", summary.finished_elsewhere) : "",
                         summary.elsewhere ? fmt::format(", {} running in another process", summary.elsewhere) : "",
                         options->profile);
            }
            return summary.failed ? int{kExitError} : int{kExitOk};
          }};
}

namespace {

// "made by: numerics 1a2b3c4d5e6f on cpu (24, this build's numerics); commit 3baf49b on SkylakeX cpu (before
// fingerprints) (3)", one line per build class, largest first.
void print_builds(const std::vector<RunRecord>& recorded) {
  if (recorded.empty()) return;
  std::map<std::string, std::pair<std::string, int>> builds;  // id → description, runs
  for (const auto& record : recorded) {
    const RecordBuild build = record_build(record);
    if (build.alone) {
      // Old runs made with unknown uncommitted changes are each a build of their own: one line per commit.
      const std::string commit = record.provenance.value("git_sha", std::string("unknown")).substr(0, 7);
      auto& entry = builds["alone " + commit];
      entry.first = fmt::format("commit {} with unknown uncommitted changes, each run a build of its own (before "
                                "fingerprints)", commit);
      ++entry.second;
      continue;
    }
    auto& entry = builds[build.id];
    entry.first = build.description;
    ++entry.second;
  }
  std::vector<std::pair<std::string, std::pair<std::string, int>>> ordered(builds.begin(), builds.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& x, const auto& y) { return x.second.second > y.second.second; });
  const std::string mine = this_process_numerics().digest;
  fmt::print("made by:\n");
  for (const auto& [id, entry] : ordered) {
    const bool this_build = id.find(mine) != std::string::npos;
    fmt::print("  {:>4} run(s): {}{}\n", entry.second, entry.first, this_build ? " — this build's numerics" : "");
  }
  if (ordered.size() > 1) {
    fmt::print("  reports pair runs of one build only; `capaboost run SPEC --profile P --rerun-other-builds` reruns the "
               "others with this build\n");
  }
}

}  // namespace

Command status_command(CLI::App& app) {
  auto* sub = app.add_subcommand("status", "Count recorded, failed and missing runs (of a spec, or of all records)");
  auto options = std::make_shared<SweepOptions>();
  add_sweep_options(sub, *options, /*spec_required=*/false);
  return {sub, [options] {
            RecordStore store(options->results_dir);
            if (options->spec_path.empty()) {
              std::map<std::string, std::map<std::string, int>> counts;  // spec → status → n
              size_t unusable = 0;
              for (const auto& stored : store.inspect_all()) {
                if (stored.record) ++counts[stored.record->spec][to_string(stored.record->status)];
                unusable += stored.problem.empty() ? 0 : 1;
              }
              for (const auto& [spec, by_status] : counts) {
                fmt::print("{:<28}", spec);
                for (const auto& [status, n] : by_status) fmt::print(" {} {}", n, status);
                fmt::print("\n");
              }
              if (unusable) {
                fmt::print("{} record(s) fail their checks and are not counted: `capaboost fsck --results {}` names "
                           "them\n",
                           unusable, options->results_dir);
              }
              return int{kExitOk};
            }
            const auto sweep = load_sweep(*options);
            const RunClaims claims(options->results_dir);
            // Runs submitted to SLURM (cluster/slurm_backend.h): asks the scheduler only when there are some.
            const auto scheduled = scheduled_runs(options->results_dir, sweep.spec.name, options->profile);
            int ok = 0, failed = 0, missing = 0, running = 0, queued = 0;
            double ok_seconds = 0.0;  // summed over the finished runs: the compute the results took
            std::set<std::string> seen;
            std::vector<RunRecord> recorded;
            for (const auto& run : sweep.runs) {
              if (!seen.insert(run.key).second) continue;
              const auto record = store.read(run.key);
              if (record) recorded.push_back(*record);
              const auto holder = record ? std::optional<ClaimHolder>() : claims.holder(run.key);
              const auto task = record ? scheduled.end() : scheduled.find(run.key);
              if (task != scheduled.end() && task->second.active) {
                ++(task->second.word == "running" ? running : queued);
                fmt::print("{:<8}{}  {}: SLURM task {}\n", task->second.word, run.key.substr(0, 12),
                           run.display_name(sweep.axes), task->second.task_id);
              } else if (holder && !claims.is_stale(claims.claim_path(run.key))) {
                ++running;
                fmt::print("running {}  {}: {} pid {} since {}\n", run.key.substr(0, 12), run.display_name(sweep.axes),
                           holder->host, holder->pid, holder->claimed_at);
              } else if (!record) {
                ++missing;
                if (task != scheduled.end()) {
                  fmt::print("missing {}  {}: SLURM task {} {} without a record (its log: {}); `run --backend "
                             "slurm` submits it again\n",
                             run.key.substr(0, 12), run.display_name(sweep.axes), task->second.task_id,
                             task->second.word, task->second.log);
                }
              } else if (record->ok()) {
                ++ok;
                ok_seconds += record->wall_time_s;
              } else {
                ++failed;
                fmt::print("failed  {}  {}: {}\n", run.key.substr(0, 12), run.display_name(sweep.axes), record->reason);
              }
            }
            fmt::print("{} (profile '{}'): {} ok, {} failed, {}{}{} missing; the ok runs took {:.1f} min of run time\n",
                       sweep.spec.name, options->profile, ok, failed, queued ? fmt::format("{} queued, ", queued) : "",
                       running ? fmt::format("{} running, ", running) : "", missing, ok_seconds / 60.0);
            // Where the recorded runs ran: a sweep finished on another machine (a GPU node, a SLURM array)
            // says so in every curated README, which quotes this output.
            std::map<std::string, int> machines;  // "device, LibTorch version" → runs
            for (const auto& record : recorded) {
              const auto& provenance = record.provenance;
              machines[fmt::format("{} with LibTorch {}", provenance.value("device", "unknown device"),
                                   provenance.value("libtorch", "unknown"))]++;
            }
            if (!machines.empty()) {
              std::vector<std::string> parts;
              for (const auto& [machine, count] : machines) parts.push_back(fmt::format("{} ({})", machine, count));
              fmt::print("recorded on: {}\n", fmt::join(parts, "; "));
            }
            // Which builds made them (store/record_build.h): runs of different builds are not paired by
            // reports, and `run --rerun-other-builds` replaces the others with runs of this build.
            print_builds(recorded);
            // SLURM array tasks write records only; the submitting side indexes them, and so does status.
            if (!scheduled.empty()) store.add_to_index(recorded);
            // Records of this spec and profile that no planned run has: made by older code or an older
            // version of the spec. They stay on disk but are never reused.
            std::map<std::string, int> stale;  // code version → count
            for (const auto& record : store.all()) {
              if (record.spec == sweep.spec.name && record.profile == options->profile &&
                  !sweep.planned_keys.count(record.key)) {
                ++stale[record.code_version.empty() ? "unknown" : record.code_version];
              }
            }
            for (const auto& [version, count] : stale) {
              fmt::print("note: {} record(s) of this spec and profile from {} have keys no current run has (older code "
                         "or an older spec); they are not reused\n",
                         count, version);
            }
            return failed || missing || running || queued ? int{kExitIncomplete} : int{kExitOk};
          }};
}

Command reindex_command(CLI::App& app) {
  auto* sub = app.add_subcommand("reindex", "Rebuild results/index.sqlite from the JSON run records");
  auto results = std::make_shared<std::string>("results");
  sub->add_option("--results", *results, "results folder");
  return {sub, [results] {
            RecordStore store(*results);
            fmt::print("indexed {} run records into {}\n", store.reindex(), store.index_path());
            return int{kExitOk};
          }};
}

}  // namespace capaboost::harness
