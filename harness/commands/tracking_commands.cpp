// `capaboost tensorboard SPEC DIR` and `capaboost export-mlflow SPEC DIR`: a spec's recorded runs where
// researchers look at runs — TensorBoard event files (tracking/tensorboard_export.h) and an MLflow file
// store (tracking/mlflow_export.h) — from the records and their curves, without running anything.

#include <fmt/format.h>

#include <memory>

#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "store/record_store.h"
#include "store/run_scalars.h"
#include "tracking/mlflow_export.h"
#include "tracking/tensorboard_export.h"

namespace capaboost::harness {

namespace {

// The finished records of the sweep's runs, with counts of those missing, failed, and without curves.
struct SweepRecords {
  std::vector<RunRecord> finished;
  int missing = 0, failed = 0, without_curves = 0;
};

SweepRecords sweep_records(const Sweep& sweep, const RecordStore& store) {
  SweepRecords records;
  for (const RunConfig& run : sweep.runs) {
    const auto record = store.read(run.key);
    if (!record) {
      ++records.missing;
    } else if (!record->ok()) {
      ++records.failed;
    } else {
      if (!has_run_scalars(*record)) ++records.without_curves;
      records.finished.push_back(*record);
    }
  }
  return records;
}

std::string shortfall(const SweepRecords& records) {
  return fmt::format("{} run(s) without a record, {} failed, {} recorded before runs kept curves", records.missing,
                     records.failed, records.without_curves);
}

}  // namespace

Command tensorboard_command(CLI::App& app) {
  auto* sub = app.add_subcommand("tensorboard",
                                 "Write the recorded runs of a spec as TensorBoard event files under DIR (one run "
                                 "folder each: <row>/<task>-seed<s>-<key>); then `tensorboard --logdir DIR`");
  auto options = std::make_shared<SweepOptions>();
  auto directory = std::make_shared<std::string>();
  add_sweep_options(sub, *options);
  sub->add_option("directory", *directory, "the TensorBoard log dir")->required();
  return {sub, [options, directory] {
            const Sweep sweep = load_sweep(*options);
            const RecordStore store(options->results_dir);
            const SweepRecords records = sweep_records(sweep, store);
            int written = 0;
            for (const RunRecord& record : records.finished) {
              if (!has_run_scalars(record)) continue;
              write_tensorboard_run(*directory, store, record);
              ++written;
            }
            fmt::print("{} (profile '{}'): {} run(s) written to {} ({})\n", sweep.spec.name, options->profile, written,
                       *directory, shortfall(records));
            return written > 0 ? int{kExitOk} : int{kExitIncomplete};
          }};
}

Command export_mlflow_command(CLI::App& app) {
  auto* sub = app.add_subcommand("export-mlflow",
                                 "Write the recorded runs of a spec into an MLflow file store at DIR (experiment "
                                 "'<spec>/<profile>'; params, metrics with their curves, tags); then `mlflow ui "
                                 "--backend-store-uri DIR`");
  auto options = std::make_shared<SweepOptions>();
  auto directory = std::make_shared<std::string>();
  add_sweep_options(sub, *options);
  sub->add_option("directory", *directory, "the MLflow file store (created when missing)")->required();
  return {sub, [options, directory] {
            const Sweep sweep = load_sweep(*options);
            const RecordStore store(options->results_dir);
            const SweepRecords records = sweep_records(sweep, store);
            const std::string name = sweep.spec.name + "/" + options->profile;
            const MlflowExport exported = export_mlflow(*directory, name, records.finished, store);
            fmt::print("{}: experiment {} in {}: {} run(s), {} with their curves ({})\n", name, exported.experiment_id,
                       *directory, exported.runs, exported.with_curves, shortfall(records));
            return exported.runs > 0 ? int{kExitOk} : int{kExitIncomplete};
          }};
}

}  // namespace capaboost::harness
