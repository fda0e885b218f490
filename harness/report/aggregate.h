#pragma once
// From run records to table cells: group by row and column, select the learning rate on eval,
// and summarise over seeds.

#include "plan/run_config.h"
#include "spec/spec.h"
#include "store/record_store.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// One table cell: a metric over seeds.
struct Cell {
  std::vector<double> values;      ///< one per seed (successful runs only)
  std::vector<std::string> keys;   ///< run keys that produced them
  std::vector<int64_t> seeds;      ///< the run seed of each value (pairs cells run on the same seeds)
  std::vector<std::string> builds; ///< the build class of each value's record (store/record_build.h)
  int planned = 0;                 ///< runs planned at the reported learning rate (its seeds)
  int failed = 0;                  ///< runs of this cell recorded as failed
  int missing = 0;                 ///< runs of this cell with no usable record
  /// Each missing run, said so that a reader can find and rerun it: "seed 43 (run 1a2b3c4d5e6f): no
  /// record", "…: quarantined by fsck (quarantine/…/runs/<key>.json)", "…: its record fails its checks (…)".
  std::vector<std::string> absent;
  std::optional<double> selected_lr;  ///< the runs' learning rate, the chosen one when several ran; none when the measure takes none
  size_t learning_rates = 0;       ///< learning rates it was chosen from (0 or 1: nothing to choose)
  /// The score a model that learned nothing stays at or below on this cell's test split (its chance
  /// level plus two standard errors; report/learning_check.h), when the metric has such a level.
  std::optional<double> chance_bound;

  double mean() const;
  double std() const;  ///< sample standard deviation (n − 1); 0 for one value
  bool empty() const { return values.empty(); }
  /// Every value sits at or below chance_bound: the row did not learn here.
  bool did_not_learn() const;
};

/// Cells of one metric, by row label then column label, in spec order.
struct CellTable {
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::map<std::string, std::map<std::string, Cell>> cells;  // row → column → cell
  std::map<std::string, std::string> build_descriptions;      // build class → its short label (RecordBuild::label)
};

/// The label of a JSON parameter value in a table ("8", "0.5", "diff").
std::string value_label(const nlohmann::json& value);

/// The number a label spells ("0.5", "64"), or nullopt for a name ("CoLA").
std::optional<double> numeric_label(const std::string& label);

/// A field of a CSV line, quoted, with inner quotes doubled.
std::string csv_field(const std::string& text);

/// A column's heading: "rank=8" for a numeric value of parameter `key`; a named value ("CoLA", "diff")
/// says what it is by itself; the label alone when `key` is empty.
std::string column_title(const std::string& key, const std::string& column);

/// Aggregates `metric` over the spec's runs. `row_key` is "label" or a parameter; `column_key` a
/// parameter, or empty for one column named after the metric. When runs differ in `lr`, each cell
/// keeps the learning rate whose mean `selection_metric` (an eval-split metric) is highest and
/// reports `metric` of that learning rate.
CellTable aggregate(const std::vector<RunConfig>& runs, const RecordStore& store, const std::string& metric,
                    const std::string& row_key, const std::string& column_key,
                    const std::string& selection_metric = "eval_score");

/// One budget column's values (report.table.budget): row → the mean of `column.metric` over the row's
/// runs (at the eval-selected learning rate), divided by row `column.relative_to`'s mean when set.
/// When that row has no measured value, `by_row` is empty and `problem` says so, for the caption.
struct BudgetValues {
  std::map<std::string, double> by_row;
  std::string problem;
};
BudgetValues budget_values(const std::vector<RunConfig>& runs, const RecordStore& store, const BudgetColumn& column,
                           const std::string& row_key);

}  // namespace capaboost::harness
