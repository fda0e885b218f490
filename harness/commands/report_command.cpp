#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "plan/data_fingerprint.h"
#include "report/report_files.h"
#include "store/record_store.h"

#include <fmt/format.h>

#include <filesystem>

namespace capaboost::harness {

Command report_command(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "Write LaTeX, CSV and Markdown tables and figures of a spec from its records");
  auto options = std::make_shared<SweepOptions>();
  auto out_dir = std::make_shared<std::string>();
  auto plots_dir = std::make_shared<std::string>("plots");
  add_sweep_options(sub, *options);
  sub->add_option("--out", *out_dir, "output folder (default: <results>/reports/<spec>/<profile>)");
  sub->add_option("--plots", *plots_dir, "folder of the gnuplot templates");
  return {sub, [options, out_dir, plots_dir] {
            const auto sweep = load_sweep(*options);
            const RecordStore store(options->results_dir);
            const std::string out =
                out_dir->empty()
                    ? (std::filesystem::path(options->results_dir) / "reports" / sweep.spec.name / options->profile).string()
                    : *out_dir;
            ReportInputs inputs{sweep.spec, sweep.runs, store, options->profile, *plots_dir, RunContext{}};
            inputs.context.data_root = resolve_data_root(options->data_root);
            if (const int incomplete = write_report_files(inputs, out)) {
              fmt::print("note: {} run(s) of this report are missing or failed (marked †); `capaboost run` fills them\n",
                         incomplete);
            }
            return int{kExitOk};
          }};
}

}  // namespace capaboost::harness
