#include "report/average_column.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace capaboost::harness {

Cell row_average(const CellTable& cells, const std::string& row, const std::vector<std::string>& columns) {
  return block_average(cells, {row}, columns);
}

Cell block_average(const CellTable& cells, const std::vector<std::string>& rows, const std::vector<std::string>& columns) {
  Cell average;
  if (rows.empty() || columns.empty()) return average;
  std::vector<const Cell*> parts;
  for (const auto& row : rows) {
    const auto found = cells.cells.find(row);
    if (found == cells.cells.end()) return average;
    for (const auto& column : columns) {
      const auto cell = found->second.find(column);
      if (cell == found->second.end()) return average;  // a column with no cell at all: no average to give
      parts.push_back(&cell->second);
      average.planned = std::max(average.planned, cell->second.planned);
      average.failed += cell->second.failed;
      average.missing += cell->second.missing;
      average.absent.insert(average.absent.end(), cell->second.absent.begin(), cell->second.absent.end());
    }
  }
  // The seeds every cell has, in the first cell's order.
  for (size_t i = 0; i < parts.front()->values.size(); ++i) {
    const int64_t seed = parts.front()->seeds[i];
    double sum = 0;
    std::vector<std::string> keys;
    std::string build;  // the seed's build when every cell's run has the same one, else "mixed"
    bool complete = true;
    for (const Cell* part : parts) {
      const auto at = std::find(part->seeds.begin(), part->seeds.end(), seed);
      if (at == part->seeds.end()) {
        complete = false;
        break;
      }
      const auto index = static_cast<size_t>(at - part->seeds.begin());
      sum += part->values[index];
      keys.push_back(part->keys[index]);
      if (index < part->builds.size()) {
        const std::string& part_build = part->builds[index];
        build = build.empty() || build == part_build ? part_build : "mixed";
      }
    }
    if (!complete) continue;
    average.values.push_back(sum / static_cast<double>(parts.size()));
    average.seeds.push_back(seed);
    average.builds.push_back(build);
    average.keys.insert(average.keys.end(), keys.begin(), keys.end());
  }
  return average;
}

void add_group_averages(TableDocument& document, const TableLayout& layout) {
  if (layout.group_average.empty()) return;
  const std::string& title = layout.group_average_title;
  // The measured columns (an average column of the paper's, if any, is not averaged again).
  std::vector<std::string> measured;
  for (const auto& column : document.cells.columns) {
    if (!document.paper || column != document.paper->average) measured.push_back(column);
  }
  bool added = false;
  for (const auto& group : layout.group_average) {
    const bool present = std::all_of(group.rows.begin(), group.rows.end(), [&](const std::string& row) {
      return std::find(document.cells.rows.begin(), document.cells.rows.end(), row) != document.cells.rows.end();
    });
    if (!present) continue;
    const std::string label = layout.group_row(group);
    document.cells.rows.push_back(label);
    document.cells.cells[label][title] = block_average(document.cells, group.rows, measured);
    added = true;
  }
  // The column also shows the paper's averages where this profile runs no group whole (keep_rows).
  const bool printed = document.paper && std::any_of(document.paper->rows.begin(), document.paper->rows.end(),
                                                     [&](const auto& row) { return row.second.count(title) > 0; });
  if ((added || printed) &&
      std::find(document.cells.columns.begin(), document.cells.columns.end(), title) == document.cells.columns.end()) {
    document.cells.columns.push_back(title);
  }
}

std::string add_average_column(TableDocument& document) {
  if (!document.paper || document.paper->average.empty() || document.cells.columns.empty()) return "";
  auto& paper = *document.paper;
  const std::vector<std::string> measured = document.cells.columns;
  // Every column the paper's profile runs is measured: ours is the paper's average, under its title.
  const bool every_column = document.absent_columns.empty();
  const std::string title = every_column ? paper.average : fmt::format("Mean of {}", measured.size());
  for (const auto& row : document.cells.rows) document.cells.cells[row][title] = row_average(document.cells, row, measured);
  document.cells.columns.push_back(title);
  if (every_column) return title;
  // The paper's rows over the same columns, from its own numbers (no spread: the paper gives none for it).
  for (auto& entry : paper.rows) {
    // A named reference, not the structured binding: C++17 lambdas cannot capture bindings (clang refuses).
    auto& values = entry.second;
    double sum = 0;
    const bool complete = std::all_of(measured.begin(), measured.end(), [&](const std::string& column) {
      const auto value = values.find(column);
      if (value == values.end()) return false;
      sum += value->second.mean;
      return true;
    });
    if (complete) values[title] = ReportedValue{sum / static_cast<double>(measured.size()), std::nullopt};
  }
  const std::string note = fmt::format(
      "{}: each row's mean over the {} columns run ({}), seed by seed; the paper's rows there are the means of its "
      "printed numbers over the same columns (its {} averages all {})",
      title, measured.size(), fmt::join(measured, ", "), paper.average, measured.size() + document.absent_columns.size());
  document.caption = document.caption.empty() ? note : document.caption + (document.caption.back() == '.' ? " " : ". ") + note;
  return title;
}

}  // namespace capaboost::harness
