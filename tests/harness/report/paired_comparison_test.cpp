#include "report/paired_comparison.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

Cell cell(std::vector<double> values, std::vector<int64_t> seeds) {
  Cell c;
  c.values = std::move(values);
  c.seeds = std::move(seeds);
  c.planned = static_cast<int>(c.values.size());
  return c;
}

ComparisonLayout claim(const std::string& a, const std::string& b) {
  ComparisonLayout layout;
  layout.claim = "A beats B";
  layout.a.row = a;
  layout.b.row = b;
  return layout;
}

// Row a at column_a against row b at column_b.
ComparisonLayout claim_across(const std::string& a, const std::string& column_a, const std::string& b,
                              const std::string& column_b) {
  ComparisonLayout layout = claim(a, b);
  layout.a.column = column_a;
  layout.b.column = column_b;
  return layout;
}

}  // namespace

TEST_CASE("Student's t quantiles: the table and the expansion beyond it", "[harness][report]") {
  CHECK(t_quantile_975(2) == Approx(4.303));
  CHECK(t_quantile_975(1) == Approx(12.706));
  CHECK(t_quantile_975(30) == Approx(2.042));
  CHECK(t_quantile_975(31) == Approx(2.0395).margin(1e-3));
  CHECK(t_quantile_975(120) == Approx(1.9799).margin(1e-3));
  CHECK(std::isinf(t_quantile_975(0)));
}

TEST_CASE("paired differences pair by seed and give the hand-computed t-interval", "[harness][report]") {
  CellTable table;
  table.rows = {"A", "B"};
  table.columns = {"1", "2"};
  // Column 1: A − B = (2, 4, 6) by seed (B listed out of order, with a seed A lacks):
  // mean 4, sd 2, half-width 4.303 · 2 / √3 = 4.9687 → [−0.97, 8.97]: holds 0, no signal.
  table.cells["A"]["1"] = cell({12, 14, 16}, {42, 43, 44});
  table.cells["B"]["1"] = cell({10, 10, 10, 99}, {43, 42, 44, 45});
  // Column 2: A − B = 1 at every seed: the interval is [1, 1], A is better beyond doubt.
  table.cells["A"]["2"] = cell({3, 4, 5}, {42, 43, 44});
  table.cells["B"]["2"] = cell({2, 3, 4}, {42, 43, 44});
  const auto result = compare(claim("A", "B"), table, /*higher_is_better=*/true);
  REQUIRE(result.differences.size() == 2);
  const auto& first = result.differences[0];
  CHECK(first.seeds == std::vector<int64_t>{42, 43, 44});
  CHECK(first.mean == Approx(4.0));
  CHECK(first.half_width == Approx(4.303 * 2 / std::sqrt(3.0)));
  CHECK(first.sign(true) == 0);
  CHECK(result.differences[1].half_width == Approx(0.0).margin(1e-12));
  CHECK(result.differences[1].sign(true) == 1);
  CHECK(result.verdict == "reproduced at 1 of 2");
  // The claim turned around is contradicted where the gap is beyond noise.
  CHECK(compare(claim("B", "A"), table, true).verdict == "not reproduced");
  // Lower is better (e.g. a loss): A's larger values now count against it.
  CHECK(compare(claim("A", "B"), table, false).verdict == "not reproduced");
}

TEST_CASE("a comparison across columns, one seed, and identical scores", "[harness][report]") {
  CellTable table;
  table.rows = {"d=1", "d=2"};
  table.columns = {"32", "64"};
  table.cells["d=2"]["32"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["d=1"]["64"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["d=2"]["64"] = cell({5}, {1});
  table.cells["d=1"]["32"] = cell({4}, {1});
  const auto result = compare(claim_across("d=2", "32", "d=1", "64"), table, true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_a == "32");
  CHECK(result.differences[0].column_b == "64");
  CHECK(result.verdict == "no signal");  // MCC 0 against MCC 0: nothing to conclude
  // One seed has no interval: never a verdict either way.
  const auto one = compare(claim_across("d=2", "64", "d=1", "32"), table, true);
  CHECK(std::isinf(one.differences[0].half_width));
  CHECK(one.verdict == "no signal");
  CHECK(compare(claim("d=2", "missing"), table, true).verdict == "not measured");
}

TEST_CASE("a claim's numeric column finds the table's column however the spec writes the number",
          "[harness][report]") {
  // The table prints density 1.0 as "1" (value_label's {:g}); the spec says `column: 1.0`.
  CellTable table;
  table.rows = {"Diff-mask"};
  table.columns = {"0.6", "1"};
  table.cells["Diff-mask"]["0.6"] = cell({30, 27, 29}, {42, 43, 44});
  table.cells["Diff-mask"]["1"] = cell({14, 14, 19}, {42, 43, 44});
  const auto result = compare(claim_across("Diff-mask", "0.6", "Diff-mask", "1.0"), table, true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_b == "1");
  CHECK(result.differences[0].seeds.size() == 3);
  CHECK(result.differences[0].mean == Approx(13.0));
  CHECK(result.verdict == "reproduced");
}

TEST_CASE("a claim that A and B perform alike is judged against its margin", "[harness][report]") {
  CellTable table;
  table.rows = {"A", "B"};
  table.columns = {"near", "far", "wide", "flat"};
  // near: A − B = (0.1, 0.2, 0.3): mean 0.2, half-width 4.303 · 0.1 / √3 = 0.248 → inside ±1.
  table.cells["A"]["near"] = cell({10.1, 10.2, 10.3}, {1, 2, 3});
  table.cells["B"]["near"] = cell({10, 10, 10}, {1, 2, 3});
  // far: A − B = 3 at every seed: wholly outside ±1, a real gap.
  table.cells["A"]["far"] = cell({13, 14, 15}, {1, 2, 3});
  table.cells["B"]["far"] = cell({10, 11, 12}, {1, 2, 3});
  // wide: A − B = (−2, 0, 2): mean 0, half-width 4.97: too wide to tell.
  table.cells["A"]["wide"] = cell({8, 10, 12}, {1, 2, 3});
  table.cells["B"]["wide"] = cell({10, 10, 10}, {1, 2, 3});
  // flat: both sides score the same at every seed (MCC 0 against MCC 0).
  table.cells["A"]["flat"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["B"]["flat"] = cell({0, 0, 0}, {1, 2, 3});
  ComparisonLayout alike = claim("A", "B");
  alike.within = 1.0;
  const auto result = compare(alike, table, true);
  REQUIRE(result.differences.size() == 4);
  CHECK(result.differences[0].alike(1.0) == 1);
  CHECK(result.differences[1].alike(1.0) == -1);
  CHECK(result.differences[2].alike(1.0) == 0);
  CHECK(result.differences[3].alike(1.0) == 0);
  CHECK(result.verdict == "not reproduced");
  // Without the far column one of the three that remain decides, for the claim.
  table.columns = {"near", "wide", "flat"};
  CHECK(compare(alike, table, true).verdict == "reproduced at 1 of 3");
  // A wider margin takes in the far column's gap of 3 only when the interval fits too.
  alike.within = 3.5;
  table.columns = {"near", "far"};
  CHECK(compare(alike, table, true).verdict == "reproduced");
}

TEST_CASE("a claim at each side's rate chosen on eval reads each row at its own best eval column", "[harness][report]") {
  // Columns are learning rates. A's eval mean peaks at 2e-3, B's at 1e-3, though B's test scores are
  // highest at 2e-3: the claim compares A at 2e-3 with B at 1e-3, never a rate chosen on test.
  CellTable eval;
  eval.rows = {"A", "B"};
  eval.columns = {"0.001", "0.002"};
  eval.cells["A"]["0.001"] = cell({10, 11, 12}, {42, 43, 44});
  eval.cells["A"]["0.002"] = cell({20, 21, 22}, {42, 43, 44});
  eval.cells["B"]["0.001"] = cell({15, 15, 15}, {42, 43, 44});
  eval.cells["B"]["0.002"] = cell({5, 6, 7}, {42, 43, 44});
  CellTable test = eval;
  test.cells["A"]["0.002"] = cell({30, 31, 32}, {42, 43, 44});
  test.cells["B"]["0.001"] = cell({28, 28, 28}, {42, 43, 44});
  test.cells["B"]["0.002"] = cell({90, 90, 90}, {42, 43, 44});

  ComparisonLayout layout = claim("A", "B");
  layout.at_chosen_on_eval = true;
  const ComparisonLayout chosen = with_columns_chosen_on(layout, eval);
  CHECK(chosen.a.column == "0.002");
  CHECK(chosen.b.column == "0.001");
  const auto result = compare(chosen, test, /*higher_is_better=*/true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_a == "0.002");
  CHECK(result.differences[0].column_b == "0.001");
  CHECK(result.differences[0].mean == Approx(3.0));  // (2 + 3 + 4) / 3
  CHECK(result.verdict == "reproduced");             // sd 1: 3 ± 4.303 / √3 = [0.52, 5.48]

  // A row with no eval score anywhere cannot be placed: the claim is not measured, not read at a default.
  CellTable no_eval = eval;
  no_eval.cells.erase("B");
  const auto unplaced = compare(with_columns_chosen_on(layout, no_eval), test, true);
  CHECK(unplaced.verdict == "not measured");
  // A claim without `at` is left as written.
  CHECK(with_columns_chosen_on(claim("A", "B"), eval).a.column.empty());
}
