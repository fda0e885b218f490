#pragma once
// Rendering measured comparisons (report/paired_comparison.h): a Markdown section with every paired
// difference and a closing claims table (the claim, our measurement, the verdict), and CSV.

#include "report/paired_comparison.h"

#include <string>
#include <vector>

namespace capaboost::harness {

/// "## Paired differences" (one line per column pair: n, mean A − B, 95% interval, seeds; the row
/// means' difference in italics after them) and "## Claims" (one line per comparison). `column_key` titles numeric columns ("density=0.5").
std::string render_comparisons_markdown(const std::vector<ComparisonResult>& results, const std::string& column_key,
                                        int decimals);
/// claim, a, b, column_a, column_b, n, mean, ci_low, ci_high, seeds, verdict — one line per column pair,
/// then the row means' (column_a = column_b = the average column's title).
std::string render_comparisons_csv(const std::vector<ComparisonResult>& results);

}  // namespace capaboost::harness
