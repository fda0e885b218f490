// The paper's average column for our rows: per-seed means over the columns, the paper's own rows
// recomputed when a profile runs fewer columns, and claims that show the average without counting it.

#include "report/average_column.h"
#include "report/comparison_writer.h"
#include "report/paired_comparison.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

Cell cell(std::vector<double> values, std::vector<int64_t> seeds, std::vector<std::string> keys) {
  Cell c;
  c.values = std::move(values);
  c.seeds = std::move(seeds);
  c.keys = std::move(keys);
  c.planned = 3;
  return c;
}

// Two rows over CoLA and RTE, three seeds each; the paper printed CoLA, RTE, MNLI and their mean "All".
TableDocument two_task_document(std::vector<std::string> absent) {
  TableDocument d;
  d.spec_name = "glue";
  d.title = "GLUE";
  d.profile = "cpu";
  d.metric = "paper_score";
  d.cells.rows = {"CapaBoost-LoRA", "LoRA"};
  d.cells.columns = {"CoLA", "RTE"};
  d.cells.cells["CapaBoost-LoRA"]["CoLA"] = cell({20, 22, 24}, {42, 43, 44}, {"c1", "c2", "c3"});
  d.cells.cells["CapaBoost-LoRA"]["RTE"] = cell({60, 50, 56}, {42, 43, 44}, {"r1", "r2", "r3"});
  d.cells.cells["LoRA"]["CoLA"] = cell({10, 14, 12}, {42, 43, 44}, {"c4", "c5", "c6"});
  d.cells.cells["LoRA"]["RTE"] = cell({54, 50, 52}, {42, 43, 44}, {"r4", "r5", "r6"});
  d.absent_columns = std::move(absent);
  PaperNumbers paper;
  paper.metric = "paper_score";
  paper.average = "All";
  paper.rows["LoRA"] = {{"CoLA", {62.0, std::nullopt}}, {"RTE", {68.0, std::nullopt}}, {"MNLI", {86.0, std::nullopt}},
                        {"All", {72.0, std::nullopt}}};
  paper.rows["CapaBoost-LoRA"] = {{"CoLA", {64.0, 0.6}}, {"RTE", {75.0, 2.4}}, {"MNLI", {87.0, 0.3}}, {"All", {75.33, 0.3}}};
  paper.rows["AdaMix"] = {{"CoLA", {63.0, std::nullopt}}};  // lacks RTE: no mean over the columns run
  paper.row_order = {"LoRA", "CapaBoost-LoRA", "AdaMix"};
  d.paper = paper;
  return d;
}

}  // namespace

TEST_CASE("a row's average is the mean over its columns seed by seed, over the seeds all columns have",
          "[harness][report]") {
  CellTable table;
  table.rows = {"A"};
  table.columns = {"1", "2"};
  // Seed 44 is missing from column 2 (a failed run): it drops out of the average, which is marked.
  table.cells["A"]["1"] = cell({10, 20, 30}, {42, 43, 44}, {"a", "b", "c"});
  table.cells["A"]["2"] = cell({4, 0}, {43, 42}, {"d", "e"});
  table.cells["A"]["2"].failed = 1;
  const Cell average = row_average(table, "A", {"1", "2"});
  CHECK(average.seeds == std::vector<int64_t>{42, 43});
  CHECK(average.values == std::vector<double>{5, 12});  // (10 + 0) / 2, (20 + 4) / 2
  CHECK(average.keys == std::vector<std::string>{"a", "e", "b", "d"});
  CHECK(average.failed == 1);
  CHECK(average.planned == 3);
  // A column the row has no cell in leaves nothing to average.
  CHECK(row_average(table, "A", {"1", "3"}).empty());
  CHECK(row_average(table, "B", {"1"}).empty());
}

TEST_CASE("when every column ran, the average takes the paper's title and stands beside its printed value",
          "[harness][report]") {
  auto d = two_task_document({});
  REQUIRE(add_average_column(d) == "All");
  CHECK(d.cells.columns == std::vector<std::string>{"CoLA", "RTE", "All"});
  CHECK(d.cells.cells["CapaBoost-LoRA"]["All"].mean() == Approx(38.6667));  // (40 + 36 + 40) / 3
  CHECK(d.cells.cells["LoRA"]["All"].values == std::vector<double>{32, 32, 32});
  CHECK(d.paper->rows["LoRA"]["All"].mean == 72.0);  // as printed, not recomputed
  CHECK(d.caption.empty());
  const auto markdown = render_markdown(d);
  CHECK_THAT(markdown, Catch::Contains("| Method | CoLA | RTE | All |"));
  CHECK_THAT(markdown, Catch::Contains("| LoRA* | 62.0 | 68.0 | 72.0 |\n| LoRA (ours) | 12.0 ± 2.0 | 52.0 ± 2.0 | 32.0 ± 0.0 |"));
}

TEST_CASE("when fewer columns ran, the average is over them, the paper's rows too, and the caption says so",
          "[harness][report]") {
  auto d = two_task_document({"MNLI"});
  d.caption = "Full training splits.";
  REQUIRE(add_average_column(d) == "Mean of 2");
  CHECK(d.paper->rows["LoRA"]["Mean of 2"].mean == Approx(65.0));  // (62 + 68) / 2, not the printed All
  CHECK_FALSE(d.paper->rows["CapaBoost-LoRA"]["Mean of 2"].std);    // no spread the paper did not print
  CHECK_FALSE(d.paper->rows["AdaMix"].count("Mean of 2"));
  CHECK(d.caption ==
        "Full training splits. Mean of 2: each row's mean over the 2 columns run (CoLA, RTE), seed by seed; the "
        "paper's rows there are the means of its printed numbers over the same columns (its All averages all 3)");
  const auto markdown = render_markdown(d);
  CHECK_THAT(markdown, Catch::Contains("| CoLA | RTE | Mean of 2 | MNLI |"));
  CHECK_THAT(markdown, Catch::Contains("| LoRA* | 62.0 | 68.0 | 65.0 | 86.0 |"));
  CHECK_THAT(markdown, Catch::Contains("| AdaMix* | 63.0 | – | – | – |"));
}

TEST_CASE("paper numbers without an average column leave the table as it was", "[harness][report]") {
  auto d = two_task_document({});
  d.paper->average.clear();
  CHECK(add_average_column(d).empty());
  CHECK(d.cells.columns == std::vector<std::string>{"CoLA", "RTE"});
}

TEST_CASE("a claim over every column shows the averages' difference and does not count it", "[harness][report]") {
  auto d = two_task_document({"MNLI"});
  const std::string average = add_average_column(d);
  ComparisonLayout layout;
  layout.claim = "CapaBoost-LoRA improves on LoRA";
  layout.a.row = "CapaBoost-LoRA";
  layout.b.row = "LoRA";
  std::vector<ComparisonResult> results{compare(layout, d.cells, /*higher_is_better=*/true, average)};
  decide_verdicts(results, false);
  const auto& result = results.front();
  // CoLA: +10 ± 2, p = 0.0131, ×2 by Holm (A better); RTE: 6, 0, 4 (holds 0); the averages differ by 8,
  // 4, 8 (A better, not counted).
  REQUIRE(result.differences.size() == 2);
  CHECK(result.verdict == "reproduced at 1 of 2");
  REQUIRE(result.average);
  CHECK(result.average->mean == Approx(6.6667));
  CHECK(result.average->sign(true) == 1);
  const auto markdown = render_comparisons_markdown({result}, "task", 1);
  CHECK_THAT(markdown, Catch::Contains("| CapaBoost-LoRA | LoRA | *Mean of 2* | 3 | +6.7 |"));
  CHECK_THAT(markdown, Catch::Contains("no verdict counts it."));
  CHECK_THAT(render_comparisons_csv({result}), Catch::Contains("\"Mean of 2\",\"Mean of 2\",3,"));
}

TEST_CASE("a group's average is its rows' mean over every column, seed by seed, and only for groups run whole",
          "[harness][report]") {
  TableDocument d = two_task_document({});
  d.cells.rows.push_back("LoRA r=16");
  d.cells.cells["LoRA r=16"]["CoLA"] = cell({16, 18, 20}, {42, 43, 44}, {"c7", "c8", "c9"});
  d.cells.cells["LoRA r=16"]["RTE"] = cell({58, 54, 50}, {43, 42, 44}, {"r7", "r8", "r9"});
  const std::string all = add_average_column(d);  // the paper's "All" first; groups average the tasks only
  REQUIRE(all == "All");
  TableLayout layout;
  layout.group_average_title = "Avg";
  layout.group_average = {{"LoRA", {"LoRA", "LoRA r=16"}}, {"CapaBoost-LoRA", {"CapaBoost-LoRA"}},
                          {"Absent", {"LoRA", "LoRA r=64"}}};
  add_group_averages(d, layout);
  CHECK(d.cells.columns == std::vector<std::string>{"CoLA", "RTE", "All", "Avg"});
  // "Absent" names a row this profile did not run: no row for it.
  CHECK(d.cells.rows == std::vector<std::string>{"CapaBoost-LoRA", "LoRA", "LoRA r=16", "LoRA (Avg)", "CapaBoost-LoRA (Avg)"});
  const Cell& lora = d.cells.cells.at("LoRA (Avg)").at("Avg");
  // Seed 42: (10 + 54 + 16 + 54) / 4, seed 43: (14 + 50 + 18 + 58) / 4, seed 44: (12 + 52 + 20 + 50) / 4.
  CHECK(lora.seeds == std::vector<int64_t>{42, 43, 44});
  CHECK(lora.values == std::vector<double>{33.5, 35.0, 33.5});
  CHECK(lora.keys.size() == 12);
  // One row's group is that row's own average over the tasks.
  CHECK(d.cells.cells.at("CapaBoost-LoRA (Avg)").at("Avg").values == d.cells.cells.at("CapaBoost-LoRA").at("All").values);
  // A claim may compare two groups' averages, paired by seed.
  ComparisonLayout claim;
  claim.claim = "CapaBoost-LoRA beats LoRA on average";
  claim.a = {"CapaBoost-LoRA (Avg)", "Avg"};
  claim.b = {"LoRA (Avg)", "Avg"};
  const auto result = compare(claim, d.cells, true, all);
  REQUIRE(result.differences.size() == 1);
  CHECK(result.differences[0].seeds == std::vector<int64_t>{42, 43, 44});
  CHECK(result.differences[0].mean == Approx((40 + 36 + 40) / 3.0 - (33.5 + 35.0 + 33.5) / 3.0));
}
