#pragma once
// The comparisons a paper draws, measured: for a claim "A beats B", the paired difference A − B over
// the seeds both were run with (same data order, same masks), per table column, with a 95% Student-t
// interval and a verdict that survives review with three seeds.
//
//   report:
//     allow_cross_build: false   # default: a pair of runs from two builds withholds the verdict
//     comparisons:
//       - {claim: "Diff-mask beats Same-mask at every density (§6)", a: Diff-mask, b: Same-mask}
//       - {claim: "d=2 at r=32 beats d=1 at r=64 (§6)", a: {row: d=2, column: 32}, b: {row: d=1, column: 64}}
//       - {claim: "2:4 masks perform like random masks", a: "2:4", b: Random, within: 1.0}
//       - {claim: "0.6 beats 1.0, each at its own rate", a: density 0.6, b: density 1.0, at: chosen_on_eval}
//       - {claim: "…", a: X, b: Y, family: glue}     # adjusted together with the other claims of family glue
//       - {claim: "…", a: X, b: Y, chosen_from: 16}  # A is the best of 16 settings seen on these seeds
//
// The rules (docs/harness-and-specs.md, "Verdicts"), in the order they apply:
//
// 1. One build. Each seed's pair must come from one build (store/record_build.h). A claim with a pair
//    across builds reads "crosses builds — rerun" unless the spec says `allow_cross_build: true`.
// 2. Learning. A column where A or B sits at its task's chance level on every seed (Cell::did_not_learn)
//    is not tested; a claim with no other column reads "not testable (B did not learn)".
// 3. Multiplicity. The tested columns of a claim (and of every claim sharing its `family`) are one
//    family: Holm's adjustment over their p-values (report/significance.h); `chosen_from: N` first
//    multiplies the claim's p-values by N (A was picked as the best of N on these seeds).
// 4. Decision per column, at adjusted p < 0.05: "A beats B" — A better or B better (the direction of the
//    mean); `within: m` — equivalent (TOST: the 90% interval inside ±m) or not equivalent (the 95%
//    interval wholly outside ±m).
// 5. Verdict over the tested columns: "reproduced" / "equivalent" (every column), "not reproduced" /
//    "not equivalent" (any column against), "reproduced at k of m" / "equivalent at k of m", else
//    "no signal".

#include "report/aggregate.h"
#include "report/significance.h"
#include "spec/spec.h"

#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// The level every decision is taken at, after adjustment.
inline constexpr double kSignificanceLevel = 0.05;

/// A − B at one column pair, over the seeds both sides have.
struct PairedDifference {
  std::string column_a, column_b;
  std::vector<int64_t> seeds;
  double mean = 0;
  double standard_error = 0;  ///< sd/√n of the differences; infinite for fewer than two pairs
  double half_width = 0;      ///< of the 95% t-interval; infinite for fewer than two pairs
  double half_width_90 = 0;   ///< of the 90% t-interval (the one equivalence is judged by)
  PairedTests tests;          ///< unadjusted
  /// The p-value the decision uses after Holm (and `chosen_from`): of the difference for "A beats B",
  /// of equivalence for `within`; 1 for a column not tested.
  double p_adjusted = 1;
  double p_not_equivalent_adjusted = 1;  ///< `within` only: of "not equivalent", adjusted likewise
  /// Pairs whose A and B runs come from two builds, by the builds: "seeds 42, 43: numerics 1a2b… on cpu
  /// vs commit 3baf49b on SkylakeX cpu (before fingerprints)".
  std::vector<std::string> crossing;
  /// Runs of either side planned here with no usable record (Cell::absent), "A seed 43 (run 1a2b…):
  /// quarantined by fsck (…)": the pairs they would have made are not in `seeds`.
  std::vector<std::string> absent;
  /// Empty when both sides learned; else "A did not learn", "B did not learn" or "neither learned".
  std::string not_testable;
  /// After the decision: +1 A better (or equivalent), −1 B better (or not equivalent), 0 neither.
  int decision = 0;

  bool tested() const { return !seeds.empty() && not_testable.empty(); }
  /// +1: the interval lies above 0 (A better), −1: below (B better), 0: it holds 0. Unadjusted.
  int sign(bool higher_is_better) const;
};

struct ComparisonResult {
  ComparisonLayout spec;
  bool higher_is_better = true;
  std::vector<PairedDifference> differences;
  /// A − B of the two rows' means over the columns (the paper's "All"), when the table has that column
  /// and the claim spans every column: shown beside the columns, not counted in the verdict.
  std::optional<PairedDifference> average;
  /// See the rules above; also "not measured" (no paired runs) and "not run on profile P".
  std::string verdict;
  /// The profile whose `keep_rows` leaves A or B out (empty when both rows run): the claim was left
  /// unmeasured on purpose, and its measurement says so rather than "no paired runs yet".
  std::string left_out_by_profile;
  /// How many tests the claim's Holm family held (its tested columns, with its family's other claims').
  size_t family_size = 0;
  /// Where the regime differs from the paper's, the few words the verdict carries ("minilm, 3 of 20
  /// epochs"; report/regime.h); empty otherwise.
  std::string regime;

  /// The verdict with its regime: "not reproduced (minilm, 3 of 20 epochs)".
  std::string verdict_text() const;
};

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (t(2) = 4.303).
double t_quantile_975(int df);

/// A claim `at: chosen_on_eval` with each side's column filled in: the column where `selection` (the
/// eval-split metric over the same rows and columns) has the row's highest mean. A side with no eval
/// score anywhere gets a column no table has, so the claim reads "not measured". Other claims: unchanged.
ComparisonLayout with_columns_chosen_on(const ComparisonLayout& spec, const CellTable& selection);

/// Pairs A's and B's values by seed in `cells` and measures each column pair: the difference, its
/// intervals and unadjusted tests, the pairs that cross builds, and whether both sides learned.
/// `average_column` names the column of row means (report/average_column.h), or is empty: it goes to
/// `average`, not the verdict. The verdict is left for decide_verdicts.
ComparisonResult compare(const ComparisonLayout& spec, const CellTable& cells, bool higher_is_better,
                         const std::string& average_column = "");

/// Rules 1 and 3–5 over every claim of a report at once (families may span its tables): adjusts,
/// decides each tested column and writes each verdict. Claims already given a verdict (a row left out
/// by the profile) are left alone. `allow_cross_build`: the spec's report.allow_cross_build.
void decide_verdicts(std::vector<ComparisonResult>& results, bool allow_cross_build);

}  // namespace capaboost::harness
