#pragma once
// The comparisons a paper draws, measured: for a claim "A beats B", the paired difference A − B over
// the seeds both were run with (same data order, same masks), with a 95% Student-t interval, per table
// column, and a verdict a reader can trust with three seeds.
//
//   report:
//     comparisons:
//       - {claim: "Diff-mask beats Same-mask at every density (§6)", a: Diff-mask, b: Same-mask}
//       - {claim: "d=2 at r=32 beats d=1 at r=64 (§6)", a: {row: d=2, column: 32}, b: {row: d=1, column: 64}}
//       - {claim: "2:4 masks perform like random masks", a: "2:4", b: Random, within: 1.0}
//       - {claim: "0.6 beats 1.0, each at its own rate", a: density 0.6, b: density 1.0, at: chosen_on_eval}
//
// A claim with `within: m` says A and B perform alike: a column supports it when the 95% interval of
// A − B lies inside [−m, m], and contradicts it when the interval lies wholly outside.

#include "report/aggregate.h"
#include "spec/spec.h"

#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// A − B at one column pair, over the seeds both sides have.
struct PairedDifference {
  std::string column_a, column_b;
  std::vector<int64_t> seeds;
  double mean = 0;
  double half_width = 0;  ///< of the 95% t-interval; infinite for fewer than two pairs
  /// +1: the interval lies above 0 (A better), −1: below (B better), 0: it holds 0.
  int sign(bool higher_is_better) const;
  /// +1: the interval lies inside [−margin, margin] (alike), −1: wholly outside it, 0: neither.
  int alike(double margin) const;
};

struct ComparisonResult {
  ComparisonLayout spec;
  std::vector<PairedDifference> differences;
  /// A − B of the two rows' means over the columns (the paper's "All"), when the table has that column
  /// and the claim spans every column: shown beside the columns, not counted in the verdict.
  std::optional<PairedDifference> average;
  /// "reproduced" (A better, or alike, at every column), "not reproduced" (B better, or a gap beyond
  /// the margin, at some column), "no signal" (no column decides), or "reproduced at k of m".
  std::string verdict;
  /// The profile whose `keep_rows` leaves A or B out (empty when both rows run): the claim was left
  /// unmeasured on purpose, and its measurement says so rather than "no paired runs yet".
  std::string left_out_by_profile;
};

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (t(2) = 4.303).
double t_quantile_975(int df);

/// A claim `at: chosen_on_eval` with each side's column filled in: the column where `selection` (the
/// eval-split metric over the same rows and columns) has the row's highest mean. A side with no eval
/// score anywhere gets a column no table has, so the claim reads "not measured". Other claims: unchanged.
ComparisonLayout with_columns_chosen_on(const ComparisonLayout& spec, const CellTable& selection);

/// Pairs A's and B's values by seed in `cells` and summarises each column pair. `average_column` names
/// the column of row means (report/average_column.h), or is empty: it goes to `average`, not the verdict.
ComparisonResult compare(const ComparisonLayout& spec, const CellTable& cells, bool higher_is_better,
                         const std::string& average_column = "");

}  // namespace capaboost::harness
