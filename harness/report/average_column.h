#pragma once
// The paper's average column ("All" in Tables 2 and 3: each row's mean over the tasks) for our rows, and
// its average over groups of rows ("Avg" in Table 4: each method's mean over its budgets and tasks).
//
// A row's average is taken seed by seed: for each seed that has a value in every column, the mean of
// those values; the cell then summarises those per-seed means, so its spread and the paired differences
// of two rows' averages pair seeds as the columns do. When a profile runs fewer columns than the paper
// (5 of GLUE's 8 tasks on cpu), an average over them is no match for the paper's: the column is then
// titled "Mean of 5", the paper's rows get the mean of their own printed numbers over the same columns,
// and the caption says so.

#include "report/aggregate.h"
#include "report/table_writer.h"

#include <string>
#include <vector>

namespace capaboost::harness {

/// Row `row`'s mean over `columns`, one value per seed that has a value in every one of them. Runs
/// missing or failed in any of the columns are counted as the cell's, so an incomplete average is marked.
Cell row_average(const CellTable& cells, const std::string& row, const std::vector<std::string>& columns);

/// The mean over every cell of `rows` × `columns`, one value per seed that has a value in all of them
/// (row_average for several rows); missing and failed runs counted likewise.
Cell block_average(const CellTable& cells, const std::vector<std::string>& rows, const std::vector<std::string>& columns);

/// For each of `layout`'s group_average groups whose rows the document has (a profile's keep_rows may
/// leave some out: that group gets no row), appends the row "<group> (<title>)" with one cell in the
/// column <title>: block_average over the group's rows and the document's measured columns; the column is
/// there too when no group is run whole but the paper prints averages under <title>. Call it after
/// add_average_column and before comparisons are drawn.
void add_group_averages(TableDocument& document, const TableLayout& layout);

/// When the document's paper numbers name an average column, appends it to the measured columns (every
/// row's `row_average` over them) and returns its title; otherwise changes nothing and returns "".
/// Call it after the measured and absent columns are known and before comparisons are drawn.
std::string add_average_column(TableDocument& document);

}  // namespace capaboost::harness
