#include "report/paired_comparison.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>

namespace capaboost::harness {
namespace {

const Cell* find_cell(const CellTable& cells, const std::string& row, const std::string& column) {
  auto r = cells.cells.find(row);
  if (r == cells.cells.end()) return nullptr;
  auto c = r->second.find(column);
  return c == r->second.end() ? nullptr : &c->second;
}

// A claim's column as the table names it. Numeric columns are printed with {:g} (value_label): a spec's
// `column: 1.0` is the table's column "1", which a plain string match never found ("not measured").
std::string table_column(const CellTable& cells, const std::string& column) {
  const auto wanted = numeric_label(column);
  if (!wanted) return column;
  for (const auto& candidate : cells.columns) {
    if (const auto value = numeric_label(candidate); value && *value == *wanted) return candidate;
  }
  return column;
}

PairedDifference paired(const Cell* a, const Cell* b, const std::string& column_a, const std::string& column_b) {
  PairedDifference difference;
  difference.column_a = column_a;
  difference.column_b = column_b;
  if (!a || !b) return difference;
  std::map<int64_t, double> b_by_seed;
  for (size_t i = 0; i < b->values.size(); ++i) b_by_seed[b->seeds[i]] = b->values[i];
  std::vector<double> diffs;
  for (size_t i = 0; i < a->values.size(); ++i) {
    if (auto it = b_by_seed.find(a->seeds[i]); it != b_by_seed.end()) {
      difference.seeds.push_back(a->seeds[i]);
      diffs.push_back(a->values[i] - it->second);
    }
  }
  const size_t n = diffs.size();
  if (n == 0) return difference;
  for (double d : diffs) difference.mean += d / n;
  if (n < 2) {
    difference.half_width = INFINITY;
    return difference;
  }
  double squares = 0;
  for (double d : diffs) squares += (d - difference.mean) * (d - difference.mean);
  difference.half_width = t_quantile_975(static_cast<int>(n) - 1) * std::sqrt(squares / (n - 1) / n);
  return difference;
}

}  // namespace

int PairedDifference::sign(bool higher_is_better) const {
  if (seeds.size() < 2) return 0;
  const double direction = higher_is_better ? 1.0 : -1.0;
  if (direction * mean - half_width > 0) return 1;
  if (direction * mean + half_width < 0) return -1;
  return 0;
}

int PairedDifference::alike(double margin) const {
  if (seeds.size() < 2) return 0;
  // Equal scores at every seed (both sides at MCC 0, say) mean the two never differed in what was
  // measured, not that they were shown alike: no evidence either way.
  if (mean == 0 && half_width == 0) return 0;
  if (std::abs(mean) + half_width <= margin) return 1;
  if (std::abs(mean) - half_width > margin) return -1;
  return 0;
}

double t_quantile_975(int df) {
  // Student's t table (two-sided 95%) for 1..30 degrees of freedom; beyond, the Cornish–Fisher
  // expansion around z = 1.95996, which is within 1e-3 of the exact quantile there.
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return INFINITY;
  if (df <= 30) return kTable[df - 1];
  const double z = 1.959964, v = df;
  return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

ComparisonLayout with_columns_chosen_on(const ComparisonLayout& spec, const CellTable& selection) {
  if (!spec.at_chosen_on_eval) return spec;
  const auto chosen_column = [&](const std::string& row) -> std::string {
    std::string best = "(no eval score)";
    double best_mean = -INFINITY;
    for (const auto& column : selection.columns) {
      const Cell* cell = find_cell(selection, row, column);
      if (cell && !cell->empty() && cell->mean() > best_mean) {
        best_mean = cell->mean();
        best = column;
      }
    }
    return best;
  };
  ComparisonLayout chosen = spec;
  chosen.a.column = chosen_column(spec.a.row);
  chosen.b.column = chosen_column(spec.b.row);
  return chosen;
}

ComparisonResult compare(const ComparisonLayout& spec, const CellTable& cells, bool higher_is_better,
                         const std::string& average_column) {
  ComparisonResult result;
  result.spec = spec;
  if (spec.a.column.empty() && spec.b.column.empty()) {
    for (const auto& column : cells.columns) {
      const Cell* a = find_cell(cells, spec.a.row, column);
      const Cell* b = find_cell(cells, spec.b.row, column);
      if (!a || !b || a->empty() || b->empty()) continue;
      // The row means restate the columns: counting them too would count every column twice.
      if (column == average_column) {
        result.average = paired(a, b, column, column);
      } else {
        result.differences.push_back(paired(a, b, column, column));
      }
    }
  } else {
    // One side names a column: the other side is read at its own column, or at the same one.
    const std::string column_a = table_column(cells, spec.a.column.empty() ? spec.b.column : spec.a.column);
    const std::string column_b = table_column(cells, spec.b.column.empty() ? spec.a.column : spec.b.column);
    result.differences.push_back(
        paired(find_cell(cells, spec.a.row, column_a), find_cell(cells, spec.b.row, column_b), column_a, column_b));
  }
  int better = 0, worse = 0, measured = 0;
  for (const auto& difference : result.differences) {
    if (difference.seeds.empty()) continue;
    ++measured;
    const int sign = spec.within ? difference.alike(*spec.within) : difference.sign(higher_is_better);
    better += sign > 0;
    worse += sign < 0;
  }
  if (measured == 0) {
    result.verdict = "not measured";
  } else if (worse > 0) {
    result.verdict = "not reproduced";
  } else if (better == measured) {
    result.verdict = "reproduced";
  } else if (better == 0) {
    result.verdict = "no signal";
  } else {
    result.verdict = fmt::format("reproduced at {} of {}", better, measured);
  }
  return result;
}

}  // namespace capaboost::harness
