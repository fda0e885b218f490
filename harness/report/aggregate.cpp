#include "report/aggregate.h"

#include "store/record_build.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace capaboost::harness {
namespace {

template <typename T>
void append_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

double mean_of(const std::vector<double>& values) {
  return values.empty() ? NAN : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

// Why `run` has no usable record, in words a reader can act on.
std::string absence(const RunConfig& run, const StoredRecord& stored, const RecordStore& store) {
  const std::string who = run.config.contains("seed") ? fmt::format("seed {} (run {})", run.config.at("seed").dump(),
                                                                      run.key.substr(0, 12))
                                                      : fmt::format("run {}", run.key.substr(0, 12));
  if (!stored.problem.empty()) return fmt::format("{}: its record fails its checks ({})", who, stored.problem);
  const std::string quarantined = store.quarantined_record(run.key);
  if (!quarantined.empty()) return fmt::format("{}: quarantined by fsck ({})", who, quarantined);
  return fmt::format("{}: no record", who);
}

}  // namespace

double Cell::mean() const { return mean_of(values); }

double Cell::std() const {
  if (values.size() < 2) return 0.0;
  const double m = mean();
  double sum = 0;
  for (double v : values) sum += (v - m) * (v - m);
  return std::sqrt(sum / (values.size() - 1));
}

bool Cell::did_not_learn() const {
  if (!chance_bound || values.empty()) return false;
  return std::all_of(values.begin(), values.end(), [&](double v) { return v <= *chance_bound; });
}

std::string value_label(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{:g}", value.get<double>());
  return value.dump();
}

std::optional<double> numeric_label(const std::string& label) {
  char* end = nullptr;
  const double value = std::strtod(label.c_str(), &end);
  if (label.empty() || !end || *end != '\0') return std::nullopt;
  return value;
}

std::string csv_field(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string column_title(const std::string& key, const std::string& column) {
  return numeric_label(column) && !key.empty() ? fmt::format("{}={}", key, column) : column;
}

CellTable aggregate(const std::vector<RunConfig>& runs, const RecordStore& store, const std::string& metric,
                    const std::string& row_key, const std::string& column_key, const std::string& selection_metric) {
  // row → column → lr → cell of `metric`, plus the same for the selection metric.
  std::map<std::string, std::map<std::string, std::map<std::optional<double>, Cell>>> by_lr, selection_by_lr;
  CellTable table;
  for (const auto& run : runs) {
    const std::string row = row_key == "label" ? run.label : value_label(run.config.value(row_key, nlohmann::json("-")));
    const std::string column = column_key.empty() ? metric : value_label(run.config.value(column_key, nlohmann::json("-")));
    append_unique(table.rows, row);
    append_unique(table.columns, column);
    // Runs of measures without a learning rate form one group.
    const std::optional<double> lr =
        run.config.contains("lr") ? std::optional<double>(run.config.at("lr").get<double>()) : std::nullopt;
    Cell& cell = by_lr[row][column][lr];
    Cell& selection = selection_by_lr[row][column][lr];
    if (std::find(cell.keys.begin(), cell.keys.end(), run.key) != cell.keys.end()) continue;
    ++cell.planned;
    // A record that fails its checks (a digest that does not match, a truncated file) is never used:
    // its run counts as missing, and the claims say which run and why.
    const StoredRecord stored = store.inspect(run.key);
    const auto& record = stored.record;
    if (!record) {
      ++cell.missing;
      cell.absent.push_back(absence(run, stored, store));
    } else if (!record->ok()) {
      ++cell.failed;
    } else if (record->metrics.contains(metric)) {
      cell.values.push_back(record->metrics[metric].get<double>());
      cell.keys.push_back(run.key);
      cell.seeds.push_back(run.config.value("seed", int64_t{0}));
      const RecordBuild build = record_build(*record);
      cell.builds.push_back(build.id);
      table.build_descriptions[build.id] = build.label;
      if (record->metrics.contains(selection_metric)) {
        selection.values.push_back(record->metrics[selection_metric].get<double>());
      }
    }
  }
  for (auto& [row, columns] : by_lr) {
    for (auto& [column, lrs] : columns) {
      // One lr: nothing to select. Several: the best mean eval score among complete learning rates.
      auto chosen = lrs.begin();
      if (lrs.size() > 1) {
        double best = -INFINITY;
        for (auto it = lrs.begin(); it != lrs.end(); ++it) {
          const double score = mean_of(selection_by_lr[row][column][it->first].values);
          if (!it->second.empty() && std::isfinite(score) && score > best) {
            best = score;
            chosen = it;
          }
        }
      }
      Cell cell = chosen->second;
      cell.selected_lr = chosen->first;
      cell.learning_rates = lrs.size();
      for (const auto& [lr, other] : lrs) {
        if (lr == chosen->first) continue;
        cell.missing += other.missing;  // an unfinished lr makes the selection provisional
        for (const auto& absent : other.absent) {
          cell.absent.push_back(lr ? fmt::format("lr {:g}, {}", *lr, absent) : absent);
        }
        cell.failed += other.failed;
      }
      table.cells[row][column] = cell;
    }
  }
  return table;
}

BudgetValues budget_values(const std::vector<RunConfig>& runs, const RecordStore& store, const BudgetColumn& column,
                           const std::string& row_key) {
  BudgetValues values;
  const CellTable table = aggregate(runs, store, column.metric, row_key, "");
  for (const auto& [row, columns] : table.cells) {
    const auto cell = columns.find(column.metric);
    if (cell != columns.end() && !cell->second.empty()) values.by_row[row] = cell->second.mean();
  }
  if (column.relative_to.empty()) return values;
  // A factor of one row's value ("FLOPs vs LoRA"): without that row there is no factor to show.
  const auto reference = values.by_row.find(column.relative_to);
  if (reference == values.by_row.end() || reference->second == 0) {
    values.problem =
        fmt::format("{}: no measured {} of row '{}' to divide by", column.title, column.metric, column.relative_to);
    values.by_row.clear();
    return values;
  }
  const double divisor = reference->second;
  for (auto& [row, value] : values.by_row) value /= divisor;
  return values;
}

}  // namespace capaboost::harness
