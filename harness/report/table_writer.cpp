#include "report/table_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

namespace capaboost::harness {
namespace {

std::string latex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("&%$#_{}").find(c) != std::string::npos) {
      out += '\\';
      out += c;
    } else if (c == '~') {
      out += "\\textasciitilde{}";
    } else if (c == '^') {
      out += "\\textasciicircum{}";
    } else if (c == '\\') {
      out += "\\textbackslash{}";
    } else {
      out += c;
    }
  }
  return out;
}

std::string column_title(const TableDocument& d, const std::string& column) {
  return harness::column_title(d.column_key, column);
}

// The measured cell whose mean is best in each column (bolded).
std::map<std::string, std::string> best_rows(const TableDocument& d) {
  std::map<std::string, std::string> best;
  for (const auto& column : d.cells.columns) {
    double best_value = d.higher_is_better ? -INFINITY : INFINITY;
    for (const auto& row : d.cells.rows) {
      const auto& cell = d.cells.cells.at(row).count(column) ? d.cells.cells.at(row).at(column) : Cell{};
      if (cell.empty()) continue;
      const double v = cell.mean();
      if (d.higher_is_better ? v > best_value : v < best_value) {
        best_value = v;
        best[column] = row;
      }
    }
  }
  return best;
}

// Every column: the measured ones, then those this profile does not run.
std::vector<std::string> all_columns(const TableDocument& d) {
  std::vector<std::string> columns = d.cells.columns;
  columns.insert(columns.end(), d.absent_columns.begin(), d.absent_columns.end());
  return columns;
}

std::optional<double> measured_budget(const TableDocument& d, const std::string& row, const std::string& title) {
  const auto r = d.budget.find(row);
  if (r == d.budget.end()) return std::nullopt;
  const auto v = r->second.find(title);
  if (v == r->second.end()) return std::nullopt;
  return v->second;
}

std::optional<double> paper_budget(const TableDocument& d, const std::string& row, const std::string& title) {
  if (!d.paper_budget) return std::nullopt;
  const auto r = d.paper_budget->rows.find(row);
  if (r == d.paper_budget->rows.end()) return std::nullopt;
  const auto v = r->second.find(title);
  if (v == r->second.end()) return std::nullopt;
  return v->second.mean;
}

// A row's budget cells, each between `before` and `after` ("–" where a value is unknown).
std::string budget_cells(const TableDocument& d, const std::string& row, bool paper, const std::string& before,
                         const std::string& after, bool latex) {
  std::string out;
  for (const auto& title : d.budget_titles) {
    const auto value = paper ? paper_budget(d, row, title) : measured_budget(d, row, title);
    out += before + (value ? fmt::format("{:.2f}", *value) : std::string(latex ? "--" : "–")) + after;
  }
  return out;
}

// The caption's note on the columns not run, shown or not ("" when none).
std::string absent_note(const TableDocument& d) {
  std::vector<std::string> not_run = d.absent_columns;
  not_run.insert(not_run.end(), d.unreported_columns.begin(), d.unreported_columns.end());
  if (not_run.empty()) return "";
  return fmt::format("{} not run on profile {}{}", fmt::join(not_run, ", "), d.profile,
                     d.absent_columns.empty() ? "" : " (n/a)");
}

// The spec's caption, then the note on absent columns as a sentence of its own (a caption may end
// with its own full stop, or not).
std::string caption_and_absent_note(const TableDocument& d) {
  std::string caption = d.caption;
  const auto sentence = [&](const std::string& text) {
    caption += (caption.empty() ? "" : caption.back() == '.' ? " " : ". ") + text + ".";
  };
  if (!d.absent_columns.empty() || !d.unreported_columns.empty()) sentence(absent_note(d));
  const bool unlearned = std::any_of(d.cells.cells.begin(), d.cells.cells.end(), [](const auto& row) {
    return std::any_of(row.second.begin(), row.second.end(), [](const auto& cell) { return cell.second.did_not_learn(); });
  });
  if (unlearned) {
    sentence("‡ did not learn: at or below its task's chance level plus two standard errors on every seed, so no "
             "claim tests it");
  }
  return caption;
}

const Cell* find_cell(const TableDocument& d, const std::string& row, const std::string& column) {
  auto r = d.cells.cells.find(row);
  if (r == d.cells.cells.end()) return nullptr;
  auto c = r->second.find(column);
  return c == r->second.end() ? nullptr : &c->second;
}

const ReportedValue* find_reported(const TableDocument& d, const std::string& row, const std::string& column) {
  if (!d.paper) return nullptr;
  auto r = d.paper->rows.find(row);
  if (r == d.paper->rows.end()) return nullptr;
  auto c = r->second.find(column);
  return c == r->second.end() ? nullptr : &c->second;
}

// Paper rows with no measured row of the same label (methods the suite does not run), in file order.
std::vector<std::string> paper_only_rows(const TableDocument& d) {
  std::vector<std::string> rows;
  if (!d.paper) return rows;
  for (const auto& row : d.paper->row_order) {
    if (std::find(d.cells.rows.begin(), d.cells.rows.end(), row) == d.cells.rows.end()) rows.push_back(row);
  }
  return rows;
}

std::string measured_text(const Cell* cell, int decimals, bool latex) {
  if (!cell || (cell->empty() && !cell->failed)) return latex ? "--" : "–";
  if (cell->empty()) return "failed";
  const std::string mean = fmt::format("{:.{}f}", cell->mean(), decimals);
  // One value has no spread to show: "± 0.0" would claim a measured zero variance.
  std::string text = cell->values.size() < 2 ? mean
                     : latex ? fmt::format("{}_{{\\pm {:.{}f}}}", mean, cell->std(), decimals)
                             : fmt::format("{} ± {:.{}f}", mean, cell->std(), decimals);
  if (cell->missing || cell->failed) text += latex ? "^{\\dagger}" : " †";
  if (cell->did_not_learn()) text += latex ? "^{\\ddagger}" : " ‡";
  return text;
}

std::string reported_text(const ReportedValue* value, int decimals, bool latex) {
  if (!value) return latex ? "--" : "–";
  const std::string mean = fmt::format("{:.{}f}", value->mean, decimals);
  if (!value->std) return mean;
  return latex ? fmt::format("{}_{{\\pm {:.{}f}}}", mean, *value->std, decimals)
               : fmt::format("{} ± {:.{}f}", mean, *value->std, decimals);
}

}  // namespace

// Seeds are counted across cells, not per cell: a sweep curated after its first seed has one seed in every
// cell, and two cells run on different seeds together have two. A cell's value count stands in where the
// values carry no seeds (documents built by hand). Cells that hold fewer than the others make it a range
// ("1–3 of 3 planned"): a cell shared with another spec's runs may be complete while the sweep has run one
// seed, and "3 seed(s)" would then describe one cell only.
std::string seed_phrase(const CellTable& table) {
  std::set<int64_t> seeds;
  size_t measured = 0, planned = 0, fewest = SIZE_MAX;
  for (const auto& [row, columns] : table.cells) {
    for (const auto& [column, cell] : columns) {
      seeds.insert(cell.seeds.begin(), cell.seeds.end());
      measured = std::max(measured, cell.values.size());
      planned = std::max({planned, static_cast<size_t>(cell.planned), cell.values.size()});
      const size_t held = std::max(cell.values.size(), cell.seeds.size());
      if (held > 0) fewest = std::min(fewest, held);
    }
  }
  measured = std::max(measured, seeds.size());
  if (fewest < measured) return fmt::format("{}–{} of {} planned seed(s)", fewest, measured, std::max(planned, measured));
  return measured < planned ? fmt::format("{} of {} planned seed(s)", measured, planned)
                            : fmt::format("{} seed(s)", planned);
}

void move_unreported_absent_columns(TableDocument& document) {
  std::vector<std::string> reported;
  for (const auto& column : document.absent_columns) {
    const bool has_number = document.paper && std::any_of(document.paper->rows.begin(), document.paper->rows.end(),
                                                          [&](const auto& row) { return row.second.count(column) > 0; });
    (has_number ? reported : document.unreported_columns).push_back(column);
  }
  document.absent_columns = std::move(reported);
}

std::string render_latex(const TableDocument& d) {
  const auto best = best_rows(d);
  std::string out;
  out += fmt::format("% Generated by `capaboost report` from run records: spec {}, profile {}, metric {}.\n",
                     d.spec_name, d.profile, d.metric);
  std::vector<std::string> keys;
  for (const auto& [row, columns] : d.cells.cells) {
    for (const auto& [column, cell] : columns) keys.insert(keys.end(), cell.keys.begin(), cell.keys.end());
  }
  for (size_t i = 0; i < keys.size(); i += 4) {
    out += "% runs:";
    for (size_t j = i; j < std::min(keys.size(), i + 4); ++j) out += " " + keys[j];
    out += "\n";
  }
  out += "\\begin{table}[t]\n\\centering\n";
  out += fmt::format(
      "\\caption{{{} ({}). Measured rows: mean$_{{\\pm\\mathrm{{std}}}}$ over {}, profile "
      "\\texttt{{{}}}, best measured entry per column in bold; rows marked * are the paper's reported "
      "numbers{}; $^\\dagger$: some runs missing or failed.{}}}\n",
      latex_escape(d.title), latex_escape(d.metric), seed_phrase(d.cells), latex_escape(d.profile),
      d.paper && !d.paper->source.empty() ? " (" + latex_escape(d.paper->source) + ")" : "",
      caption_and_absent_note(d).empty() ? "" : " " + latex_escape(caption_and_absent_note(d)));
  const auto columns = all_columns(d);
  out += fmt::format("\\label{{tab:{}-{}}}\n", d.spec_name, d.metric);
  out += fmt::format("\\begin{{tabular}}{{l{}}}\n\\toprule\n", std::string(d.budget_titles.size() + columns.size(), 'c'));
  out += "Method";
  for (const auto& title : d.budget_titles) out += " & " + latex_escape(title);
  for (const auto& column : columns) out += " & " + latex_escape(column_title(d, column));
  out += " \\\\\n\\midrule\n";
  auto paper_row = [&](const std::string& row) {
    out += latex_escape(row) + "*" + budget_cells(d, row, true, " & ", "", true);
    for (const auto& column : columns) out += " & $" + reported_text(find_reported(d, row, column), d.decimals, true) + "$";
    out += " \\\\\n";
  };
  for (const auto& row : d.cells.rows) {
    if (d.paper && d.paper->rows.count(row)) paper_row(row);
    out += latex_escape(row) + (d.paper ? " (ours)" : "") + budget_cells(d, row, false, " & ", "", true);
    for (const auto& column : d.cells.columns) {
      const std::string text = measured_text(find_cell(d, row, column), d.decimals, true);
      const bool bold = best.count(column) && best.at(column) == row;
      out += bold ? " & $\\mathbf{" + text + "}$" : " & $" + text + "$";
    }
    for (size_t i = 0; i < d.absent_columns.size(); ++i) out += " & n/a";
    out += " \\\\\n";
  }
  const auto paper_only = paper_only_rows(d);
  if (!paper_only.empty()) out += "\\midrule\n";
  for (const auto& row : paper_only) paper_row(row);
  out += "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
  return out;
}

std::string render_csv(const TableDocument& d) {
  std::string out = "row,column,source,mean,std,n,failed,missing,lr,run_keys\n";
  auto paper_line = [&](const std::string& row, const std::string& column) {
    if (const auto* reported = find_reported(d, row, column)) {
      out += fmt::format("{},{},paper,{},{},,,,,\n", csv_field(row), csv_field(column), reported->mean,
                         reported->std ? fmt::format("{}", *reported->std) : "");
    }
  };
  // Budget columns: one value per row, the paper's beside ours.
  const auto budget_lines = [&](const std::string& row, bool measured) {
    for (const auto& title : d.budget_titles) {
      if (const auto paper = paper_budget(d, row, title)) {
        out += fmt::format("{},{},paper,{},,,,,,\n", csv_field(row), csv_field(title), *paper);
      }
      const auto ours = measured ? measured_budget(d, row, title) : std::nullopt;
      if (ours) out += fmt::format("{},{},measured,{},,,,,,\n", csv_field(row), csv_field(title), *ours);
    }
  };
  for (const auto& row : d.cells.rows) {
    budget_lines(row, true);
    for (const auto& column : d.cells.columns) {
      paper_line(row, column);
      if (const auto* cell = find_cell(d, row, column)) {
        out += fmt::format("{},{},measured,{},{},{},{},{},{},{}\n", csv_field(row), csv_field(column),
                           cell->empty() ? "" : fmt::format("{}", cell->mean()),
                           cell->values.size() < 2 ? "" : fmt::format("{}", cell->std()), cell->values.size(), cell->failed,
                           cell->missing, cell->selected_lr ? fmt::format("{}", *cell->selected_lr) : "",
                           fmt::format("{}", fmt::join(cell->keys, " ")));
      }
    }
    for (const auto& column : d.absent_columns) {
      paper_line(row, column);
      out += fmt::format("{},{},not run,,,0,0,0,,\n", csv_field(row), csv_field(column));
    }
  }
  for (const auto& row : paper_only_rows(d)) {
    budget_lines(row, false);
    for (const auto& column : all_columns(d)) paper_line(row, column);
  }
  return out;
}

std::string render_markdown(const TableDocument& d) {
  const std::string note = caption_and_absent_note(d);
  std::string out = fmt::format("**{}** ({}; profile `{}`, {}; * = paper)\n\n{}| Method |", d.title, d.metric,
                                d.profile, seed_phrase(d.cells), note.empty() ? "" : note + "\n\n");
  const auto columns = all_columns(d);
  for (const auto& title : d.budget_titles) out += " " + title + " |";
  for (const auto& column : columns) out += " " + column_title(d, column) + " |";
  out += "\n|---|";
  for (size_t i = 0; i < d.budget_titles.size() + columns.size(); ++i) out += "---|";
  out += "\n";
  auto paper_row = [&](const std::string& row) {
    out += "| " + row + "* |" + budget_cells(d, row, true, " ", " |", false);
    for (const auto& column : columns) out += " " + reported_text(find_reported(d, row, column), d.decimals, false) + " |";
    out += "\n";
  };
  for (const auto& row : d.cells.rows) {
    if (d.paper && d.paper->rows.count(row)) paper_row(row);
    out += "| " + row + (d.paper ? " (ours)" : "") + " |" + budget_cells(d, row, false, " ", " |", false);
    for (const auto& column : d.cells.columns) out += " " + measured_text(find_cell(d, row, column), d.decimals, false) + " |";
    for (size_t i = 0; i < d.absent_columns.size(); ++i) out += " n/a |";
    out += "\n";
  }
  for (const auto& row : paper_only_rows(d)) paper_row(row);
  // Which learning rate each cell's number comes from, when a grid offered a choice: a reader comparing
  // rows needs to know whether they were tuned alike (a cell without values has no choice to show).
  std::vector<std::string> choices;
  for (const auto& row : d.cells.rows) {
    std::vector<std::string> picked;
    for (const auto& column : d.cells.columns) {
      const auto* cell = find_cell(d, row, column);
      if (cell && !cell->empty() && cell->learning_rates > 1) picked.push_back(fmt::format("{} {}", column_title(d, column), *cell->selected_lr));
    }
    if (!picked.empty()) choices.push_back(fmt::format("{}: {}", row, fmt::join(picked, ", ")));
  }
  if (!choices.empty()) out += fmt::format("\nLearning rate chosen on eval — {}.\n", fmt::join(choices, "; "));
  return out;
}

}  // namespace capaboost::harness
