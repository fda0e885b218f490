#pragma once
// The curves behind a table: for every row, the training loss and the eval score after each epoch,
// the mean over seeds with their range as a band, so that a row that did not learn is seen rather than
// inferred. Drawn from the records' per-epoch metrics (details.training.epochs), of the runs each cell
// reports (at the learning rate the table chose on eval); one figure per table column (a task, a
// budget), named curves_<column>.
//
//   write_curves_figures({spec, runs, store, profile, plots_dir, out, title});   // curves_RTE.{csv,dat,gp,png,pdf}

#include <string>
#include <vector>

#include "plan/run_config.h"
#include "spec/spec.h"
#include "store/record_store.h"

namespace capaboost::harness {

struct CurvesInputs {
  const TableLayout& table;            ///< rows and columns as the table has them
  const std::vector<RunConfig>& runs;
  const RecordStore& store;
  std::string profile;
  std::string plots_dir;               ///< the gnuplot templates (plots/curves.gp)
  std::string out;                     ///< the report folder
  std::string title;                   ///< the spec's title (and split part)
};

/// Writes curves_<column>.csv (row,epoch,n,loss_mean,loss_min,loss_max,eval_mean,eval_min,eval_max) and,
/// when gnuplot is installed, .gp/.dat/.png/.pdf for every column whose reported runs are fine-tuning
/// runs with per-epoch metrics over two epochs or more. Returns the files written (none for measures without epochs).
std::vector<std::string> write_curves_figures(const CurvesInputs& inputs);

}  // namespace capaboost::harness
