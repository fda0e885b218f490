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

// The claim measured and decided alone (a family of its own), as a report does.
ComparisonResult decided(const ComparisonLayout& layout, const CellTable& table, bool higher_is_better,
                         bool allow_cross_build = false) {
  std::vector<ComparisonResult> results{compare(layout, table, higher_is_better)};
  decide_verdicts(results, allow_cross_build);
  return results.front();
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

TEST_CASE("Student's t quantiles match the printed table", "[harness][report]") {
  CHECK(t_quantile_975(2) == Approx(4.303).margin(5e-4));
  CHECK(t_quantile_975(1) == Approx(12.706).margin(5e-4));
  CHECK(t_quantile_975(30) == Approx(2.042).margin(5e-4));
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
  const auto result = decided(claim("A", "B"), table, /*higher_is_better=*/true);
  REQUIRE(result.differences.size() == 2);
  const auto& first = result.differences[0];
  CHECK(first.seeds == std::vector<int64_t>{42, 43, 44});
  CHECK(first.mean == Approx(4.0));
  CHECK(first.half_width == Approx(4.3027 * 2 / std::sqrt(3.0)).epsilon(1e-4));
  // t = 4 / (2/√3) = 2√3; with 2 degrees of freedom P(T > t) = (1 − t/√(t² + 2))/2, so p = 1 − √(12/14).
  CHECK(first.tests.p_difference == Approx(1.0 - std::sqrt(12.0 / 14.0)));
  // Holm over the two columns: column 2's p of 0 comes first (×2), column 1's (×1) is kept as it is.
  CHECK(first.p_adjusted == Approx(1.0 - std::sqrt(12.0 / 14.0)));
  CHECK(result.differences[1].p_adjusted == 0.0);
  CHECK(first.sign(true) == 0);
  CHECK(result.differences[1].half_width == Approx(0.0).margin(1e-12));
  CHECK(result.differences[1].sign(true) == 1);
  CHECK(result.verdict == "reproduced at 1 of 2");
  // The claim turned around is contradicted where the gap is beyond noise.
  CHECK(decided(claim("B", "A"), table, true).verdict == "not reproduced");
  // Lower is better (e.g. a loss): A's larger values now count against it.
  CHECK(decided(claim("A", "B"), table, false).verdict == "not reproduced");
}

TEST_CASE("a comparison across columns, one seed, and identical scores", "[harness][report]") {
  CellTable table;
  table.rows = {"d=1", "d=2"};
  table.columns = {"32", "64"};
  table.cells["d=2"]["32"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["d=1"]["64"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["d=2"]["64"] = cell({5}, {1});
  table.cells["d=1"]["32"] = cell({4}, {1});
  const auto result = decided(claim_across("d=2", "32", "d=1", "64"), table, true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_a == "32");
  CHECK(result.differences[0].column_b == "64");
  CHECK(result.verdict == "no signal");  // MCC 0 against MCC 0: nothing to conclude
  // One seed has no interval: never a verdict either way.
  const auto one = decided(claim_across("d=2", "64", "d=1", "32"), table, true);
  CHECK(std::isinf(one.differences[0].half_width));
  CHECK(one.verdict == "no signal");
  CHECK(decided(claim("d=2", "missing"), table, true).verdict == "not measured");
}

TEST_CASE("a claim's numeric column finds the table's column however the spec writes the number",
          "[harness][report]") {
  // The table prints density 1.0 as "1" (value_label's {:g}); the spec says `column: 1.0`.
  CellTable table;
  table.rows = {"Diff-mask"};
  table.columns = {"0.6", "1"};
  table.cells["Diff-mask"]["0.6"] = cell({30, 27, 29}, {42, 43, 44});
  table.cells["Diff-mask"]["1"] = cell({14, 14, 19}, {42, 43, 44});
  const auto result = decided(claim_across("Diff-mask", "0.6", "Diff-mask", "1.0"), table, true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_b == "1");
  CHECK(result.differences[0].seeds.size() == 3);
  CHECK(result.differences[0].mean == Approx(13.0));
  CHECK(result.verdict == "reproduced");
}

TEST_CASE("a claim that A and B perform alike is decided by equivalence tests against its margin",
          "[harness][report]") {
  CellTable table;
  table.rows = {"A", "B"};
  table.columns = {"near", "far", "wide", "flat"};
  // near: A − B = (0.1, 0.2, 0.3): mean 0.2, se 0.1/√3. TOST's larger one-sided p is the upper test's:
  // t = (0.2 − 1)/se = −13.856, P(T < t) = (1 − 13.856/√(13.856² + 2))/2 = 0.00258 (2 degrees of freedom).
  table.cells["A"]["near"] = cell({10.1, 10.2, 10.3}, {1, 2, 3});
  table.cells["B"]["near"] = cell({10, 10, 10}, {1, 2, 3});
  // far: A − B = 3 at every seed: wholly outside ±1, a real gap.
  table.cells["A"]["far"] = cell({13, 14, 15}, {1, 2, 3});
  table.cells["B"]["far"] = cell({10, 11, 12}, {1, 2, 3});
  // wide: A − B = (−2, 0, 2): mean 0, se 2/√3: t = ±0.866, p = (1 − 0.866/√2.75)/2 = 0.2389 each side.
  table.cells["A"]["wide"] = cell({8, 10, 12}, {1, 2, 3});
  table.cells["B"]["wide"] = cell({10, 10, 10}, {1, 2, 3});
  // flat: both sides score the same at every seed (MCC 0 against MCC 0): no evidence either way.
  table.cells["A"]["flat"] = cell({0, 0, 0}, {1, 2, 3});
  table.cells["B"]["flat"] = cell({0, 0, 0}, {1, 2, 3});
  ComparisonLayout alike = claim("A", "B");
  alike.within = 1.0;
  const auto result = decided(alike, table, true);
  REQUIRE(result.differences.size() == 4);
  const double t_near = 0.8 / (0.1 / std::sqrt(3.0));
  const double p_near = (1.0 - t_near / std::sqrt(t_near * t_near + 2.0)) / 2.0;
  CHECK(result.differences[0].tests.p_equivalent == Approx(p_near));
  CHECK(result.differences[0].p_adjusted == Approx(4 * p_near));  // the smallest of four: ×4
  CHECK(result.differences[0].decision == 1);
  CHECK(result.differences[1].tests.p_not_equivalent == 0.0);
  CHECK(result.differences[1].decision == -1);
  CHECK(result.differences[2].tests.p_equivalent == Approx((1.0 - 0.866025 / std::sqrt(2.75)) / 2.0).epsilon(1e-5));
  CHECK(result.differences[2].decision == 0);
  CHECK(result.differences[3].tests.p_equivalent == 1.0);
  CHECK(result.differences[3].decision == 0);
  CHECK(result.verdict == "not equivalent");
  // Without the far column one of the three that remain decides, for the claim.
  table.columns = {"near", "wide", "flat"};
  CHECK(decided(alike, table, true).verdict == "equivalent at 1 of 3");
  // A wider margin takes in the far column's gap of 3.
  alike.within = 3.5;
  table.columns = {"near", "far"};
  CHECK(decided(alike, table, true).verdict == "equivalent");
  // An interval holding 0 is not equivalence: wide alone, at margin 1, shows no signal.
  alike.within = 1.0;
  table.columns = {"wide"};
  CHECK(decided(alike, table, true).verdict == "no signal");
}

TEST_CASE("equivalence at p < 0.05 is the 90% interval inside the margin; not equivalent, the 95% interval outside it",
          "[harness][report]") {
  // Margin 1.5 and three pairs, as Table 2's CapaBoost-LoRA vs AdaLoRA claim. A gap far past the margin
  // whose 95% interval still reaches inside it (−5.2 [−10.4, +0.0]) is neither equivalent nor shown
  // not to be: no signal, never "matches".
  for (const auto& [values, verdict] : std::vector<std::pair<std::vector<double>, std::string>>{
           {{-0.2, 0.1, 0.4}, "equivalent"},       // mean 0.1, 90% interval [−0.41, 0.61]
           {{-3.1, -5.2, -7.3}, "no signal"},      // mean −5.2, 95% interval [−10.42, +0.02]
           {{-4.1, -5.2, -6.3}, "not equivalent"}, // 95% interval [−7.93, −2.47]: wholly below −1.5
       }) {
    CellTable table;
    table.rows = {"A", "B"};
    table.columns = {"x"};
    table.cells["A"]["x"] = cell(values, {42, 43, 44});
    table.cells["B"]["x"] = cell({0, 0, 0}, {42, 43, 44});
    ComparisonLayout alike = claim("A", "B");
    alike.within = 1.5;
    const auto result = decided(alike, table, true);
    const auto& d = result.differences.front();
    CHECK((d.tests.p_equivalent < 0.05) == (std::abs(d.mean) + d.half_width_90 < 1.5));
    CHECK((d.tests.p_not_equivalent < 0.05) == (std::abs(d.mean) - d.half_width > 1.5));
    CHECK(result.verdict == verdict);
  }
}

TEST_CASE("pairs from two builds withhold the verdict unless the spec allows them", "[harness][report]") {
  CellTable table;
  table.rows = {"A", "B"};
  table.columns = {"x"};
  table.cells["A"]["x"] = cell({30, 31, 32}, {42, 43, 44});
  table.cells["B"]["x"] = cell({20, 20, 20}, {42, 43, 44});
  table.cells["A"]["x"].builds = {"one", "one", "one"};
  table.cells["B"]["x"].builds = {"one", "one", "one"};
  CHECK(decided(claim("A", "B"), table, true).verdict == "reproduced");
  // Seed 43's B run made by another build: the pair crosses builds, and the note names both.
  table.cells["B"]["x"].builds = {"one", "two", "one"};
  table.build_descriptions = {{"one", "numerics 1a2b3c4d on cpu"}, {"two", "3baf49b clean on SkylakeX"}};
  const auto crossing = decided(claim("A", "B"), table, true);
  CHECK(crossing.verdict == "crosses builds — rerun");
  REQUIRE(crossing.differences.front().crossing.size() == 1);
  CHECK(crossing.differences.front().crossing.front() == "seed 43: numerics 1a2b3c4d on cpu vs 3baf49b clean on SkylakeX");
  // Allowed by the spec, the claim gets its verdict; the line still says what it pairs.
  const auto allowed = decided(claim("A", "B"), table, true, /*allow_cross_build=*/true);
  CHECK(allowed.verdict == "reproduced");
  CHECK(allowed.differences.front().crossing.size() == 1);
}

TEST_CASE("a column where a side did not learn is not tested", "[harness][report]") {
  CellTable table;
  table.rows = {"CapaBoost", "LoRA"};
  table.columns = {"CoLA", "SST-2"};
  // CoLA: LoRA at MCC 0 on every seed (its chance bound 8.7 is 2/√522 ×100); CapaBoost learns.
  table.cells["CapaBoost"]["CoLA"] = cell({20, 22, 24}, {42, 43, 44});
  table.cells["LoRA"]["CoLA"] = cell({0, 0, 0}, {42, 43, 44});
  table.cells["CapaBoost"]["CoLA"].chance_bound = 8.7;
  table.cells["LoRA"]["CoLA"].chance_bound = 8.7;
  // SST-2: both learn, CapaBoost 0.2 to 0.3 behind.
  table.cells["CapaBoost"]["SST-2"] = cell({80.0, 80.0, 80.0}, {42, 43, 44});
  table.cells["LoRA"]["SST-2"] = cell({80.2, 80.2, 80.3}, {42, 43, 44});
  const auto result = decided(claim("CapaBoost", "LoRA"), table, true);
  CHECK(result.differences[0].not_testable == "B did not learn");
  CHECK_FALSE(result.differences[0].tested());
  CHECK(result.differences[0].p_adjusted == 1.0);  // untested: never adjusted into a decision
  // Only SST-2 is tested (one test, no Holm factor): −0.233 with se 0.0333, t = −7, p = 0.0198 → B better.
  CHECK(result.differences[1].p_adjusted == Approx(result.differences[1].tests.p_difference));
  CHECK(result.verdict == "not reproduced");
  CHECK(result.family_size == 1);
  // With CoLA alone the claim is not testable, whichever side sits at chance.
  table.columns = {"CoLA"};
  CHECK(decided(claim("CapaBoost", "LoRA"), table, true).verdict == "not testable (B did not learn)");
  CHECK(decided(claim("LoRA", "CapaBoost"), table, true).verdict == "not testable (A did not learn)");
  // A value above the bound on one seed is learning on that seed: the row is tested.
  table.cells["LoRA"]["CoLA"] = cell({0, 0, 9}, {42, 43, 44});
  table.cells["LoRA"]["CoLA"].chance_bound = 8.7;
  CHECK(decided(claim("CapaBoost", "LoRA"), table, true).differences[0].tested());
}

TEST_CASE("Holm's adjustment over a claim's columns, its family, and a best-of-N selection", "[harness][report]") {
  // Two one-column claims, each with t = 6√3 = 10.39 on 2 degrees of freedom: p = 1 − t/√(t² + 2) = 0.00917.
  CellTable table;
  table.rows = {"A", "B", "C"};
  table.columns = {"x"};
  table.cells["A"]["x"] = cell({14, 12, 10}, {42, 43, 44});  // A − B = (14, 12, 10): mean 12, se 2/√3
  table.cells["B"]["x"] = cell({0, 0, 0}, {42, 43, 44});
  table.cells["C"]["x"] = cell({-14, -12, -10}, {42, 43, 44});  // B − C the same
  const double t = 12.0 / (2.0 / std::sqrt(3.0));
  const double p = 1.0 - t / std::sqrt(t * t + 2.0);
  auto ab = claim("A", "B");
  auto bc = claim("B", "C");
  std::vector<ComparisonResult> alone{compare(ab, table, true), compare(bc, table, true)};
  decide_verdicts(alone, false);
  CHECK(alone[0].differences[0].p_adjusted == Approx(p));
  CHECK(alone[0].verdict == "reproduced");
  // One family: Holm over two tests, ×2 on the smaller (equal) p, then the running maximum.
  ab.family = bc.family = "glue";
  std::vector<ComparisonResult> family{compare(ab, table, true), compare(bc, table, true)};
  decide_verdicts(family, false);
  CHECK(family[0].differences[0].p_adjusted == Approx(2 * p));
  CHECK(family[1].differences[0].p_adjusted == Approx(2 * p));
  CHECK(family[0].family_size == 2);
  CHECK(family[0].verdict == "reproduced");  // 0.0183 < 0.05
  // A picked as the best of 16 settings on these seeds: p × 16 = 0.147, no longer a decision.
  ab.family.clear();
  ab.chosen_from = 16;
  std::vector<ComparisonResult> picked{compare(ab, table, true)};
  decide_verdicts(picked, false);
  CHECK(picked[0].differences[0].p_adjusted == Approx(16 * p));
  CHECK(picked[0].verdict == "no signal");
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
  const auto result = decided(chosen, test, /*higher_is_better=*/true);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].column_a == "0.002");
  CHECK(result.differences[0].column_b == "0.001");
  CHECK(result.differences[0].mean == Approx(3.0));  // (2 + 3 + 4) / 3
  CHECK(result.verdict == "reproduced");             // sd 1: t = 3√3, p = 1 − √(27/29) = 0.0351

  // A row with no eval score anywhere cannot be placed: the claim is not measured, not read at a default.
  CellTable no_eval = eval;
  no_eval.cells.erase("B");
  const auto unplaced = decided(with_columns_chosen_on(layout, no_eval), test, true);
  CHECK(unplaced.verdict == "not measured");
  // A claim without `at` is left as written.
  CHECK(with_columns_chosen_on(claim("A", "B"), eval).a.column.empty());
}
