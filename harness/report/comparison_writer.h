#pragma once
// Rendering measured comparisons (report/paired_comparison.h): a Markdown section with every paired
// difference and a closing claims table (the claim, our measurement, the verdict), and CSV.

#include "report/paired_comparison.h"

#include <string>
#include <vector>

namespace capaboost::harness {

/// What the claims table says besides its rows.
struct ClaimsContext {
  /// The regime the verdicts hold in, one line (report/regime.h); empty: no line.
  std::string regime;
  /// The spec's report.allow_cross_build: said under the table, since pairs across builds then count.
  bool allow_cross_build = false;
};

/// "## Paired differences" (one line per column pair: n, mean A − B, 95% interval, the test, its p before
/// and after adjustment, and a note: pairs across builds, a side that did not learn, the 90% interval of
/// an equivalence claim; the row means' difference in italics after them) and "## Claims" (one line per
/// comparison, then the regime line). `column_key` titles numeric columns ("density=0.5").
std::string render_comparisons_markdown(const std::vector<ComparisonResult>& results, const std::string& column_key,
                                        int decimals, const ClaimsContext& context = {});
/// claim, a, b, column_a, column_b, n, mean, ci_low, ci_high, test, p, p_adjusted, note, seeds, verdict —
/// one line per column pair, then the row means' (column_a = column_b = the average column's title).
std::string render_comparisons_csv(const std::vector<ComparisonResult>& results);

}  // namespace capaboost::harness
