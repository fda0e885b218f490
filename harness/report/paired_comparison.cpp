#include "report/paired_comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

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

// The pairs of a column whose A and B runs come from two builds, seeds grouped by the two builds:
// "seeds 42, 43, 44: commit 3b93580 … vs commit dc83442 …".
std::vector<std::string> crossings(const std::vector<std::tuple<int64_t, std::string, std::string>>& pairs,
                                   const CellTable& cells) {
  const auto described = [&](const std::string& id) {
    const auto it = cells.build_descriptions.find(id);
    return it == cells.build_descriptions.end() ? id : it->second;
  };
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<int64_t>>> groups;
  for (const auto& [seed, build_a, build_b] : pairs) {
    if (build_a == build_b) continue;
    const auto builds = std::make_pair(described(build_a), described(build_b));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == builds; });
    if (it == groups.end()) it = groups.insert(groups.end(), {builds, {}});
    it->second.push_back(seed);
  }
  std::vector<std::string> texts;
  for (const auto& [builds, seeds] : groups) {
    texts.push_back(fmt::format("seed{} {}: {} vs {}", seeds.size() > 1 ? "s" : "", fmt::join(seeds, ", "),
                                builds.first, builds.second));
  }
  return texts;
}

std::string not_testable_text(bool a_did_not_learn, bool b_did_not_learn) {
  if (a_did_not_learn && b_did_not_learn) return "neither learned";
  if (a_did_not_learn) return "A did not learn";
  if (b_did_not_learn) return "B did not learn";
  return "";
}

PairedDifference paired(const Cell* a, const Cell* b, const std::string& column_a, const std::string& column_b,
                        const CellTable& cells, double margin) {
  PairedDifference difference;
  difference.column_a = column_a;
  difference.column_b = column_b;
  for (const auto& [side, cell] : {std::pair<const char*, const Cell*>{"A", a}, {"B", b}}) {
    if (!cell) continue;
    for (const auto& absent : cell->absent) difference.absent.push_back(fmt::format("{} {}", side, absent));
  }
  if (!a || !b) return difference;
  std::map<int64_t, size_t> b_by_seed;
  for (size_t i = 0; i < b->values.size(); ++i) b_by_seed[b->seeds[i]] = i;
  std::vector<double> diffs;
  std::vector<std::tuple<int64_t, std::string, std::string>> builds;  // seed, A's build, B's build
  for (size_t i = 0; i < a->values.size(); ++i) {
    if (auto it = b_by_seed.find(a->seeds[i]); it != b_by_seed.end()) {
      difference.seeds.push_back(a->seeds[i]);
      diffs.push_back(a->values[i] - b->values[it->second]);
      if (i < a->builds.size() && it->second < b->builds.size()) {
        builds.emplace_back(a->seeds[i], a->builds[i], b->builds[it->second]);
      }
    }
  }
  difference.crossing = crossings(builds, cells);
  difference.not_testable = not_testable_text(a->did_not_learn(), b->did_not_learn());
  const size_t n = diffs.size();
  if (n == 0) return difference;
  for (double d : diffs) difference.mean += d / n;
  if (n < 2) {
    difference.standard_error = difference.half_width = difference.half_width_90 = INFINITY;
    return difference;
  }
  double squares = 0;
  for (double d : diffs) squares += (d - difference.mean) * (d - difference.mean);
  difference.standard_error = std::sqrt(squares / (n - 1) / n);
  const double df = static_cast<double>(n) - 1;
  difference.half_width = student_t_quantile(0.975, df) * difference.standard_error;
  difference.half_width_90 = student_t_quantile(0.95, df) * difference.standard_error;
  difference.tests = paired_tests(difference.mean, difference.standard_error, static_cast<int>(n), margin);
  return difference;
}

// The p-value a claim's decision rests on, before adjustment.
double deciding_p(const ComparisonResult& result, const PairedDifference& d) {
  return result.spec.within ? d.tests.p_equivalent : d.tests.p_difference;
}

// "not testable (B did not learn)" from the untested columns' reasons.
std::string not_testable_verdict(const ComparisonResult& result) {
  std::set<std::string> reasons;
  for (const auto& d : result.differences) {
    if (!d.seeds.empty() && !d.not_testable.empty()) reasons.insert(d.not_testable);
  }
  if (reasons.size() == 1) return fmt::format("not testable ({})", *reasons.begin());
  return "not testable (a side did not learn)";
}

// Rules 4 and 5 for one claim whose columns carry their adjusted p-values.
void decide(ComparisonResult& result) {
  int better = 0, worse = 0, tested = 0, measured = 0;
  for (auto& d : result.differences) {
    if (d.seeds.empty()) continue;
    ++measured;
    if (!d.tested()) continue;
    ++tested;
    if (result.spec.within) {
      d.decision = d.p_adjusted < kSignificanceLevel ? 1 : d.p_not_equivalent_adjusted < kSignificanceLevel ? -1 : 0;
    } else if (d.p_adjusted < kSignificanceLevel) {
      d.decision = (result.higher_is_better ? d.mean : -d.mean) > 0 ? 1 : -1;
    }
    better += d.decision > 0;
    worse += d.decision < 0;
  }
  const bool alike = result.spec.within.has_value();
  if (measured == 0) {
    result.verdict = "not measured";
  } else if (tested == 0) {
    result.verdict = not_testable_verdict(result);
  } else if (worse > 0) {
    result.verdict = alike ? "not equivalent" : "not reproduced";
  } else if (better == tested) {
    result.verdict = alike ? "equivalent" : "reproduced";
  } else if (better == 0) {
    result.verdict = "no signal";
  } else {
    result.verdict = fmt::format("{} at {} of {}", alike ? "equivalent" : "reproduced", better, tested);
  }
}

}  // namespace

int PairedDifference::sign(bool higher_is_better) const {
  if (seeds.size() < 2) return 0;
  const double direction = higher_is_better ? 1.0 : -1.0;
  if (direction * mean - half_width > 0) return 1;
  if (direction * mean + half_width < 0) return -1;
  return 0;
}

double t_quantile_975(int df) { return df < 1 ? INFINITY : student_t_quantile(0.975, df); }

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

std::string ComparisonResult::verdict_text() const {
  return regime.empty() ? verdict : fmt::format("{} ({})", verdict, regime);
}

ComparisonResult compare(const ComparisonLayout& spec, const CellTable& cells, bool higher_is_better,
                         const std::string& average_column) {
  ComparisonResult result;
  result.spec = spec;
  result.higher_is_better = higher_is_better;
  const double margin = spec.within.value_or(0.0);
  if (spec.a.column.empty() && spec.b.column.empty()) {
    for (const auto& column : cells.columns) {
      const Cell* a = find_cell(cells, spec.a.row, column);
      const Cell* b = find_cell(cells, spec.b.row, column);
      if (!a || !b || a->empty() || b->empty()) continue;
      // The row means restate the columns: counting them too would count every column twice.
      if (column == average_column) {
        result.average = paired(a, b, column, column, cells, margin);
      } else {
        result.differences.push_back(paired(a, b, column, column, cells, margin));
      }
    }
  } else {
    // One side names a column: the other side is read at its own column, or at the same one.
    const std::string column_a = table_column(cells, spec.a.column.empty() ? spec.b.column : spec.a.column);
    const std::string column_b = table_column(cells, spec.b.column.empty() ? spec.a.column : spec.b.column);
    result.differences.push_back(paired(find_cell(cells, spec.a.row, column_a), find_cell(cells, spec.b.row, column_b),
                                        column_a, column_b, cells, margin));
  }
  return result;
}

void decide_verdicts(std::vector<ComparisonResult>& results, bool allow_cross_build) {
  // Families: a named one gathers its claims; every other claim is its own.
  std::map<std::string, std::vector<size_t>> families;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].verdict.empty()) continue;  // decided already (a row the profile leaves out)
    families[results[i].spec.family.empty() ? fmt::format("\x01claim {}", i) : results[i].spec.family].push_back(i);
  }
  for (const auto& [family, members] : families) {
    // Every tested column of the family, each p scaled by its claim's selection count first.
    std::vector<std::pair<PairedDifference*, const ComparisonResult*>> tests;
    std::vector<double> p_deciding, p_against;
    for (size_t i : members) {
      for (auto& d : results[i].differences) {
        if (!d.tested()) continue;
        const double selection = results[i].spec.chosen_from;
        tests.emplace_back(&d, &results[i]);
        p_deciding.push_back(std::min(1.0, selection * deciding_p(results[i], d)));
        p_against.push_back(std::min(1.0, selection * d.tests.p_not_equivalent));
      }
    }
    const auto adjusted = holm_adjust(p_deciding);
    const auto adjusted_against = holm_adjust(p_against);
    for (size_t t = 0; t < tests.size(); ++t) {
      tests[t].first->p_adjusted = adjusted[t];
      tests[t].first->p_not_equivalent_adjusted = adjusted_against[t];
    }
    for (size_t i : members) {
      auto& result = results[i];
      result.family_size = tests.size();
      const bool crosses = std::any_of(result.differences.begin(), result.differences.end(),
                                       [](const PairedDifference& d) { return !d.crossing.empty(); });
      if (crosses && !allow_cross_build) {
        result.verdict = "crosses builds — rerun";
        continue;
      }
      decide(result);
    }
  }
}

}  // namespace capaboost::harness
