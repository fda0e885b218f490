#include "report/curves_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "report/aggregate.h"
#include "report/figure_writer.h"
#include "util/path_name.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

namespace {

// One row's values after one epoch, over its seeds.
struct EpochSpread {
  std::vector<double> loss, eval;
};

// min, mean, max of `values` (none: NaN, which gnuplot leaves out).
struct Summary {
  double mean = std::numeric_limits<double>::quiet_NaN(), min = mean, max = mean;
};

Summary summarize(const std::vector<double>& values) {
  Summary summary;
  if (values.empty()) return summary;
  double sum = 0;
  for (const double value : values) sum += value;
  summary.mean = sum / static_cast<double>(values.size());
  summary.min = *std::min_element(values.begin(), values.end());
  summary.max = *std::max_element(values.begin(), values.end());
  return summary;
}

std::string number(double value) { return std::isnan(value) ? "NaN" : fmt::format("{:.6g}", value); }

// Epoch → spread of one cell's runs, from their records' per-epoch metrics; empty when the runs are not
// fine-tuning runs (no details.training.epochs). Epochs that were not scored (VTAB's last-epoch-only
// protocol) add their loss and no eval score.
std::map<int64_t, EpochSpread> epochs_of(const Cell& cell, const RecordStore& store) {
  std::map<int64_t, EpochSpread> epochs;
  for (const auto& key : cell.keys) {
    const auto record = store.read(key);
    if (!record || !record->details.contains("training")) continue;
    for (const auto& epoch : record->details["training"].value("epochs", nlohmann::json::array())) {
      EpochSpread& spread = epochs[epoch.value("epoch", int64_t{0})];
      spread.loss.push_back(epoch.value("train_loss", 0.0));
      if (!epoch.value("eval", nlohmann::json::object()).empty()) spread.eval.push_back(epoch.value("eval_score", 0.0));
    }
  }
  return epochs;
}

}  // namespace

std::vector<std::string> write_curves_figures(const CurvesInputs& inputs) {
  const TableLayout& table = inputs.table;
  const CellTable cells = aggregate(inputs.runs, inputs.store, table.metrics.front(), table.rows, table.columns);
  std::vector<std::string> written;
  for (const auto& column : cells.columns) {
    std::string csv = "row,epoch,n,loss_mean,loss_min,loss_max,eval_mean,eval_min,eval_max\n", data, loss_plot, eval_plot;
    int block = 0;
    size_t most_seeds = 0, most_epochs = 0;
    for (size_t index = 0; index < cells.rows.size(); ++index) {
      const std::string& row = cells.rows[index];
      const auto cell = cells.cells.at(row).find(column);
      if (cell == cells.cells.at(row).end()) continue;
      const auto epochs = epochs_of(cell->second, inputs.store);
      if (epochs.empty()) continue;
      most_epochs = std::max(most_epochs, epochs.size());
      for (const auto& [epoch, spread] : epochs) {
        const Summary loss = summarize(spread.loss), eval = summarize(spread.eval);
        most_seeds = std::max(most_seeds, spread.loss.size());
        csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", csv_field(row), epoch, spread.loss.size(), number(loss.mean),
                           number(loss.min), number(loss.max), number(eval.mean), number(eval.min), number(eval.max));
        data += fmt::format("{} {} {} {} {} {} {}\n", epoch, number(loss.mean), number(loss.min), number(loss.max),
                            number(eval.mean), number(eval.min), number(eval.max));
      }
      data += "\n\n";
      // A colour (8, then dashed) and a point shape (13) of its own per row, kept across columns.
      const auto colour = fmt::format("lt {}", index % 8 + 1);
      const auto style = fmt::format("{} dt {} pt {}", colour, index / 8 + 1, index % 13 + 1);
      const auto series = [&](int mean, int low, int high) {
        return fmt::format("'{{NAME}}.dat' index {} using 1:{}:{} with filledcurves {} fs transparent solid 0.15 "
                           "notitle, '{{NAME}}.dat' index {} using 1:{} with linespoints {} lw 2 ps 1.1 title \"{}\"",
                           block, low, high, colour, block, mean, style, gnuplot_literal(row));
      };
      loss_plot += (loss_plot.empty() ? "" : ", ") + series(2, 3, 4);
      eval_plot += (eval_plot.empty() ? "" : ", ") + series(5, 6, 7);
      ++block;
    }
    // One epoch is a point, not a curve: the table says it already.
    if (block == 0 || most_epochs < 2) continue;
    const std::string name = cells.columns.size() == 1 ? "curves" : "curves_" + path_name_slug(column);
    fs::create_directories(inputs.out);
    const auto write = [&](const std::string& file, const std::string& text) {
      std::ofstream out(fs::path(inputs.out) / file);
      out << text;
      if (!out) throw std::runtime_error(fmt::format("{}: cannot write", (fs::path(inputs.out) / file).string()));
      written.push_back((fs::path(inputs.out) / file).string());
    };
    write(name + ".csv", csv);
    write(name + ".dat", data);
    for (std::string* plot : {&loss_plot, &eval_plot}) {
      for (size_t at = plot->find("{NAME}"); at != std::string::npos; at = plot->find("{NAME}", at)) plot->replace(at, 6, name);
    }
    const std::string title = fmt::format(
        "{}{}\\n{{/*0.8 profile {}: per epoch, mean over {} seed(s), band min to max; the runs the table reports}}",
        gnuplot_literal(inputs.title), cells.columns.size() == 1 ? "" : " — " + gnuplot_literal(column),
        inputs.profile, most_seeds);
    const GnuplotPicture picture{"curves",
                                 {{"@TITLE@", title},
                                  {"@EVAL_LABEL@", "eval score (the selection metric)"},
                                  // Room under the panels for the key: three entries a line.
                                  {"@BOTTOM@", fmt::format("{:.2f}", 0.16 + 0.045 * static_cast<double>((block + 2) / 3))},
                                  {"@LOSS@", loss_plot},
                                  {"@EVAL@", eval_plot}},
                                 "9in,4.5in",
                                 "1500,750"};
    for (auto& file : render_gnuplot(picture, name, inputs.plots_dir, inputs.out)) written.push_back(std::move(file));
  }
  return written;
}

}  // namespace capaboost::harness
