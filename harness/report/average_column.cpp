#include "report/average_column.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace capaboost::harness {

Cell row_average(const CellTable& cells, const std::string& row, const std::vector<std::string>& columns) {
  Cell average;
  const auto found = cells.cells.find(row);
  if (found == cells.cells.end() || columns.empty()) return average;
  std::vector<const Cell*> parts;
  for (const auto& column : columns) {
    const auto cell = found->second.find(column);
    if (cell == found->second.end()) return average;  // a column with no cell at all: no average to give
    parts.push_back(&cell->second);
    average.planned = std::max(average.planned, cell->second.planned);
    average.failed += cell->second.failed;
    average.missing += cell->second.missing;
  }
  // The seeds every column has, in the first column's order.
  for (size_t i = 0; i < parts.front()->values.size(); ++i) {
    const int64_t seed = parts.front()->seeds[i];
    double sum = 0;
    std::vector<std::string> keys;
    std::string build;  // the seed's build when every column's run has the same one, else "mixed"
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
  for (auto& [row, values] : paper.rows) {
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
