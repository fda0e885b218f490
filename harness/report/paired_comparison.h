#pragma once
// The comparisons a paper draws, measured: for a claim "A beats B", the paired difference A − B over
// the seeds both were run with (same data order, same masks), with a 95% Student-t interval, per table
// column, and a verdict a reader can trust with three seeds.
//
//   report:
//     comparisons:
//       - {claim: "Diff-mask beats Same-mask at every density (§6)", a: Diff-mask, b: Same-mask}
//       - {claim: "d=2 at r=32 beats d=1 at r=64 (§6)", a: {row: d=2, column: 32}, b: {row: d=1, column: 64}}

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
};

struct ComparisonResult {
  ComparisonLayout spec;
  std::vector<PairedDifference> differences;
  /// "reproduced" (A better at every column), "not reproduced" (B better at some column), "no signal"
  /// (no interval excludes 0), or "reproduced at k of m" (the rest without signal).
  std::string verdict;
};

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (t(2) = 4.303).
double t_quantile_975(int df);

/// Pairs A's and B's values by seed in `cells` and summarises each column pair.
ComparisonResult compare(const ComparisonLayout& spec, const CellTable& cells, bool higher_is_better);

}  // namespace capaboost::harness
