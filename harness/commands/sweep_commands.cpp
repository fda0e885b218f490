#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "execute/executor.h"
#include "plan/data_fingerprint.h"
#include "store/record_store.h"
#include "store/run_claims.h"

#include <fmt/format.h>
#include <unistd.h>

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
  add_sweep_options(sub, *options);
  sub->add_flag("--force", execute_options->force, "rerun runs that already have a record");
  sub->add_flag("--retry-failed", execute_options->retry_failed, "rerun runs recorded as failed");
  sub->add_flag("--dry-run", execute_options->dry_run, "list what would run and stop");
  sub->add_option("--jobs,-j", execute_options->jobs, "parallel worker processes (threads are split among them)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--worker", *worker, "internal: run share i of n (i/n)")->group("");
  return {sub, [options, execute_options, worker] {
            const auto sweep = load_sweep(*options);
            RecordStore store(options->results_dir);
            auto opts = *execute_options;
            opts.spec_name = sweep.spec.name;
            opts.profile = options->profile;
            opts.context.data_root = resolve_data_root(options->data_root);
            opts.context.interactive = isatty(STDOUT_FILENO);
            if (!worker->empty()) {
              int i = 0, n = 0;
              if (std::sscanf(worker->c_str(), "%d/%d", &i, &n) != 2 || n < 1 || i < 0 || i >= n) {
                throw std::invalid_argument("--worker must be i/n");
              }
              opts.worker = i;
              opts.jobs = n;
            }
            opts.self_exe = std::filesystem::read_symlink("/proc/self/exe").string();
            opts.worker_args = {"run", options->spec_path, "--profile", options->profile, "--results",
                                options->results_dir};
            if (!options->data_root.empty()) opts.worker_args.insert(opts.worker_args.end(), {"--data-root", options->data_root});
            if (opts.force) opts.worker_args.push_back("--force");
            if (opts.retry_failed) opts.worker_args.push_back("--retry-failed");
            const auto summary = execute(sweep.runs, store, opts, sweep.axes);
            if (opts.worker < 0) {
              fmt::print("{}: {} run, {} failed, {} already recorded{} (profile '{}')\n", sweep.spec.name,
                         summary.succeeded, summary.failed, summary.skipped,
                         summary.elsewhere ? fmt::format(", {} running in another process", summary.elsewhere) : "",
                         options->profile);
            }
            return summary.failed ? int{kExitError} : int{kExitOk};
          }};
}

Command status_command(CLI::App& app) {
  auto* sub = app.add_subcommand("status", "Count recorded, failed and missing runs (of a spec, or of all records)");
  auto options = std::make_shared<SweepOptions>();
  add_sweep_options(sub, *options, /*spec_required=*/false);
  return {sub, [options] {
            const RecordStore store(options->results_dir);
            if (options->spec_path.empty()) {
              std::map<std::string, std::map<std::string, int>> counts;  // spec → status → n
              for (const auto& record : store.all()) ++counts[record.spec][to_string(record.status)];
              for (const auto& [spec, by_status] : counts) {
                fmt::print("{:<28}", spec);
                for (const auto& [status, n] : by_status) fmt::print(" {} {}", n, status);
                fmt::print("\n");
              }
              return int{kExitOk};
            }
            const auto sweep = load_sweep(*options);
            const RunClaims claims(options->results_dir);
            int ok = 0, failed = 0, missing = 0, running = 0;
            double ok_seconds = 0.0;  // summed over the finished runs: the compute the results took
            std::set<std::string> seen;
            for (const auto& run : sweep.runs) {
              if (!seen.insert(run.key).second) continue;
              const auto record = store.read(run.key);
              const auto holder = record ? std::optional<ClaimHolder>() : claims.holder(run.key);
              if (holder && !claims.is_stale(claims.claim_path(run.key))) {
                ++running;
                fmt::print("running {}  {}: {} pid {} since {}\n", run.key.substr(0, 12), run.display_name(sweep.axes),
                           holder->host, holder->pid, holder->claimed_at);
              } else if (!record) {
                ++missing;
              } else if (record->ok()) {
                ++ok;
                ok_seconds += record->wall_time_s;
              } else {
                ++failed;
                fmt::print("failed  {}  {}: {}\n", run.key.substr(0, 12), run.display_name(sweep.axes), record->reason);
              }
            }
            fmt::print("{} (profile '{}'): {} ok, {} failed, {}{} missing; the ok runs took {:.1f} min of run time\n",
                       sweep.spec.name, options->profile, ok, failed,
                       running ? fmt::format("{} running, ", running) : "", missing, ok_seconds / 60.0);
            // Records of this spec and profile that no planned run has: made by older code or an older
            // version of the spec. They stay on disk but are never reused.
            std::map<std::string, int> stale;  // code version → count
            for (const auto& record : store.all()) {
              if (record.spec == sweep.spec.name && record.profile == options->profile && !seen.count(record.key)) {
                ++stale[record.code_version.empty() ? "unknown" : record.code_version];
              }
            }
            for (const auto& [version, count] : stale) {
              fmt::print("note: {} record(s) of this spec and profile from {} have keys no current run has (older code "
                         "or an older spec); they are not reused\n",
                         count, version);
            }
            return failed || missing || running ? int{kExitIncomplete} : int{kExitOk};
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
