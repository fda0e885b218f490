#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "peft/method_registry.h"
#include "runs/data_fingerprint.h"
#include "runs/executor.h"
#include "runs/measure_registry.h"
#include "store/record_store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

namespace capaboost::harness {

Command plan_command(CLI::App& app) {
  auto* sub = app.add_subcommand("plan", "List every run of a spec: key, name, cached or not");
  auto options = std::make_shared<SweepOptions>();
  add_sweep_options(sub, *options);
  return {sub, [options] {
            const auto sweep = load_sweep(*options);
            const RecordStore store(options->results_dir);
            int cached = 0;
            for (const auto& run : sweep.runs) {
              const auto record = store.read(run.key);
              const std::string state = !record ? "missing" : record->value("status", "?");
              cached += record.has_value();
              fmt::print("{}  {:<8} {}\n", run.key.substr(0, 12), state, run.display_name(sweep.axes));
            }
            fmt::print("{}: {} runs under profile '{}', {} recorded, {} to run\n", sweep.spec.name, sweep.runs.size(),
                       options->profile, cached, sweep.runs.size() - cached);
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
              fmt::print("{}: {} run, {} failed, {} already recorded (profile '{}')\n", sweep.spec.name,
                         summary.succeeded, summary.failed, summary.skipped, options->profile);
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
              for (const auto& record : store.all()) ++counts[record.value("spec", "?")][record.value("status", "?")];
              for (const auto& [spec, by_status] : counts) {
                fmt::print("{:<28}", spec);
                for (const auto& [status, n] : by_status) fmt::print(" {} {}", n, status);
                fmt::print("\n");
              }
              return int{kExitOk};
            }
            const auto sweep = load_sweep(*options);
            int ok = 0, failed = 0, missing = 0;
            std::set<std::string> seen;
            for (const auto& run : sweep.runs) {
              if (!seen.insert(run.key).second) continue;
              const auto record = store.read(run.key);
              if (!record) {
                ++missing;
              } else if (record->value("status", "") == "ok") {
                ++ok;
              } else {
                ++failed;
                fmt::print("failed  {}  {}: {}\n", run.key.substr(0, 12), run.display_name(sweep.axes),
                           record->value("reason", ""));
              }
            }
            fmt::print("{} (profile '{}'): {} ok, {} failed, {} missing\n", sweep.spec.name, options->profile, ok,
                       failed, missing);
            return failed || missing ? int{kExitIncomplete} : int{kExitOk};
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

Command methods_command(CLI::App& app) {
  auto* sub = app.add_subcommand("methods", "List the PEFT methods and measures specs may name");
  return {sub, [] {
            fmt::print("methods:\n");
            for (const auto& name : method_names()) fmt::print("  {:<12} {}\n", name, find_method(name).description);
            fmt::print("measures:\n");
            for (const auto& name : measure_names()) fmt::print("  {:<12} {}\n", name, find_measure(name).description);
            return int{kExitOk};
          }};
}

}  // namespace capaboost::harness
