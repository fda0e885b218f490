#pragma once
// Rendering aggregated cells as LaTeX (booktabs, \input-able), CSV and Markdown, with the paper's
// reported rows (marked *) beside ours.

#include "report/aggregate.h"
#include "report/paper_numbers.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

struct TableDocument {
  std::string spec_name;
  std::string title;
  std::string profile;
  std::string metric;
  std::string column_key;  ///< parameter behind the columns ("" when columns are metrics)
  std::string caption;     ///< the profile's note to the reader (spec profiles' `caption:`), may be empty
  int decimals = 1;
  bool higher_is_better = true;
  CellTable cells;
  /// Columns the spec runs at paper scale that this profile does not (MNLI, QQP and QNLI on `mini`,
  /// whose data is not offline): shown with the paper's numbers and "n/a" for ours, never dropped.
  std::vector<std::string> absent_columns;
  /// Columns the profile does not run and the paper prints no number for (Figure 4a's densities
  /// between the four the cpu profile runs): a column of "n/a" alone tells nothing, so the caption
  /// names them and the table leaves them out (move_unreported_absent_columns).
  std::vector<std::string> unreported_columns;
  std::optional<PaperNumbers> paper;
  /// Budget columns after the method name (report.table.budget): titles, each measured row's mean over
  /// its runs (row → title → value), and the paper's from its budget file.
  std::vector<std::string> budget_titles;
  std::map<std::string, std::map<std::string, double>> budget;
  std::optional<PaperNumbers> paper_budget;
};

/// How many seeds the cells' values come from: "3 seed(s)", or "1 of 3 planned seed(s)" while a sweep's
/// seeds are still missing (the seeds any cell has a value for, against the most any cell was planned
/// with), or "1–3 of 3 planned seed(s)" while some cells hold fewer than others. Tables and figures say
/// it in their caption.
std::string seed_phrase(const CellTable& cells);

/// Moves the absent columns no paper row has a number for into `unreported_columns`; call it once
/// `paper` is set.
void move_unreported_absent_columns(TableDocument& document);

/// A booktabs table: mean with ± std over seeds as a subscript, the best measured entry per column
/// in bold, paper rows marked *, the profile and seed count in the caption, run keys as a comment.
/// Paper rows without a measured row of the same label (methods the suite does not run) follow the
/// measured rows, in the paper file's order, in all three formats.
std::string render_latex(const TableDocument& document);
/// Long format: row, column, source (paper|measured), mean, std, n, failed, missing, lr, run keys.
std::string render_csv(const TableDocument& document);
/// A GitHub-flavoured Markdown table of the same content.
std::string render_markdown(const TableDocument& document);

}  // namespace capaboost::harness
