// Figure points: a parameter on x (dodged series), or a record metric on x averaged over a parameter
// seed by seed (Figure 1's GLUE average); and the files a figure writes.

#include "report/figure_writer.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "support/read_text.h"
#include "support/temp_dir.h"

using namespace capaboost::harness;
using Catch::Contains;
using Catch::WithinAbs;

namespace {

Cell cell_of(std::vector<double> values, std::vector<int64_t> seeds) {
  Cell cell;
  cell.values = std::move(values);
  cell.seeds = std::move(seeds);
  cell.keys.assign(cell.values.size(), "k");
  return cell;
}

}  // namespace

TEST_CASE("a parameter on x: one point per value, series dodged around the true x", "[harness][report][figure]") {
  CellTable cells;
  cells.rows = {"A", "B"};
  cells.columns = {"8", "64"};
  cells.cells["A"]["8"] = cell_of({1, 3}, {42, 43});
  cells.cells["A"]["64"] = cell_of({5}, {42});
  cells.cells["B"]["8"] = cell_of({2}, {42});  // B has no run at 64: no point there

  const auto linear = points_by_parameter(cells, false);
  REQUIRE(linear.size() == 2);
  REQUIRE(linear[0].points.size() == 2);
  REQUIRE(linear[1].points.size() == 1);
  CHECK(linear[0].points[0].x == "8");
  CHECK(linear[0].points[0].mean == 2.0);
  CHECK_THAT(linear[0].points[0].std, WithinAbs(std::sqrt(2.0), 1e-12));
  CHECK(linear[0].points[0].n == 2);
  // Two series: offsets ∓1.5% of the axis (56 wide); on a log axis ∓1.5% of its 8-fold span as a factor.
  CHECK_THAT(linear[0].points[0].plot_x, WithinAbs(8 - 0.015 * 56, 1e-12));
  CHECK_THAT(linear[1].points[0].plot_x, WithinAbs(8 + 0.015 * 56, 1e-12));
  const auto log = points_by_parameter(cells, true);
  CHECK_THAT(log[0].points[1].plot_x, WithinAbs(64 * std::pow(8.0, -0.015), 1e-9));

  cells.columns = {"CoLA", "SST-2"};  // named x values are categories at 1, 2, …
  cells.cells["A"] = {{"CoLA", cell_of({1}, {42})}, {"SST-2", cell_of({2}, {42})}};
  cells.cells["B"] = {{"SST-2", cell_of({3}, {42})}};
  const auto named = points_by_parameter(cells, false);
  CHECK(named[0].points[1].plot_x == 2.0);
  CHECK(named[1].points[0].plot_x == 2.0);
}

TEST_CASE("a metric on x: one point per series, averaged over columns seed by seed", "[harness][report][figure]") {
  // Columns are tasks (`over: task`); x is % parameters, y a score.
  CellTable x, y;
  x.rows = y.rows = {"LoRA", "Adapter", "Partial"};
  x.columns = y.columns = {"CoLA", "SST-2"};
  x.cells["LoRA"] = {{"CoLA", cell_of({0.9, 0.9}, {42, 43})}, {"SST-2", cell_of({0.9, 0.9}, {42, 43})}};
  // Seed 44 ran on CoLA only: it has no average, so it is not a value of the point.
  y.cells["LoRA"] = {{"CoLA", cell_of({60, 64, 99}, {42, 43, 44})}, {"SST-2", cell_of({90, 94}, {43, 42})}};
  x.cells["Adapter"] = {{"CoLA", cell_of({0.6}, {42})}, {"SST-2", cell_of({0.8}, {42})}};
  y.cells["Adapter"] = {{"CoLA", Cell{}}, {"SST-2", Cell{}}};  // no rank for an adapter: no point
  x.cells["Partial"] = {{"CoLA", cell_of({1.0}, {42})}};
  y.cells["Partial"] = {{"CoLA", cell_of({50}, {42})}};  // SST-2 missing: no average to draw

  const auto points = points_by_metric(x, y);
  REQUIRE(points.size() == 3);
  CHECK(points[0].name == "LoRA");
  CHECK(points[1].points.empty());
  CHECK(points[2].points.empty());
  REQUIRE(points[0].points.size() == 1);
  const auto& point = points[0].points[0];
  CHECK_THAT(point.plot_x, WithinAbs(0.9, 1e-12));
  // Seed 42: (60 + 94) / 2 = 77; seed 43: (64 + 90) / 2 = 77.
  CHECK(point.mean == 77.0);
  CHECK(point.std == 0.0);
  CHECK(point.n == 2);

  // Without `over` each table has one column, named after its own metric: they pair by position.
  CellTable x1, y1;
  x1.rows = y1.rows = {"LoRA"};
  x1.columns = {"fine_tuned_percent"};
  y1.columns = {"paper_score"};
  x1.cells["LoRA"]["fine_tuned_percent"] = cell_of({0.5, 0.5}, {42, 43});
  y1.cells["LoRA"]["paper_score"] = cell_of({70, 72}, {42, 43});
  const auto single = points_by_metric(x1, y1);
  REQUIRE(single.size() == 1);
  CHECK(single[0].points[0].x == "0.5");
  CHECK(single[0].points[0].mean == 71.0);
}

TEST_CASE("a metric along a parameter: one point per value, at the metric's mean there", "[harness][report][figure]") {
  // Columns are ranks (`x: rank`); x is the parameters each rank spends, y a residual.
  CellTable x, y;
  x.rows = y.rows = {"LoRA", "CapaBoost"};
  x.columns = y.columns = {"2", "8", "32"};
  x.cells["LoRA"] = {{"2", cell_of({3072, 3072}, {42, 43})}, {"8", cell_of({12288}, {42})}};
  y.cells["LoRA"] = {{"2", cell_of({0.5, 0.7}, {42, 43})}, {"8", cell_of({0.3}, {42})}, {"32", cell_of({0.1}, {42})}};
  x.cells["CapaBoost"] = {{"2", cell_of({2300, 2310}, {42, 43})}};
  y.cells["CapaBoost"] = {{"2", Cell{}}};  // no residual recorded: no point

  const auto points = points_along_metric(x, y);
  REQUIRE(points.size() == 2);
  REQUIRE(points[0].points.size() == 2);  // rank 32 has no parameter count: no point
  CHECK(points[0].points[0].plot_x == 3072.0);
  CHECK_THAT(points[0].points[0].mean, WithinAbs(0.6, 1e-12));
  CHECK(points[0].points[0].n == 2);
  CHECK(points[0].points[1].x == "12288");
  CHECK(points[0].points[1].mean == 0.3);
  CHECK(points[1].points.empty());
}

TEST_CASE("a figure writes its points as CSV, and a plot script naming every series", "[harness][report][figure]") {
  capaboost::testing::TempDir dir;
  FigureLayout layout;
  layout.template_name = "lines_errorbars";
  layout.file = "figure_rank";
  layout.xlabel = "% trainable parameters";
  layout.ylabel = "rank";
  layout.log_base_x = 10;
  // The first series has no points (an adapter in a rank panel): the second keeps colour 2.
  const std::vector<FigureSeries> series = {{"empty", {}}, {"LoRA \"r=8\"", {{"0.9", 0.9, 8, 0, 3}}}};
  const auto written = write_figure(layout, series, "Title", std::string(CAPABOOST_SOURCE_DIR) + "/plots",
                                    dir.path().string());
  CHECK(capaboost::testing::read_text(dir.path() / "figure_rank.csv") ==
        "series,x,mean,std,n\n\"LoRA \"\"r=8\"\"\",0.9,8,0,3\n");
  const auto script = capaboost::testing::read_text(dir.path() / "figure_rank.gp");
  CHECK_THAT(script, Contains("set logscale x 10"));
  CHECK_THAT(script, Contains("index 0 using 1:2:3 with yerrorlines lt 2"));
  CHECK_THAT(script, Contains("title \"LoRA \\\"r=8\\\"\""));  // quotes escaped for gnuplot
  CHECK_THAT(script, !Contains("index 1"));  // a series without points is not drawn
  CHECK_THAT(script, Contains("set key left top"));
  CHECK(written.size() >= 2);
}

TEST_CASE("a figure of many series keeps them apart and its key out of the data", "[harness][report][figure]") {
  capaboost::testing::TempDir dir;
  FigureLayout layout;
  layout.template_name = "lines_errorbars";
  layout.file = "figure_residual";
  std::vector<FigureSeries> series;
  for (int i = 0; i < 10; ++i) series.push_back({fmt::format("d={}", i), {{"1", 1, 0.5, 0, 1}, {"2", 2, 0.4, 0, 1}}});
  series.back().name = "power_law^2";
  write_figure(layout, series, "target=power_law", std::string(CAPABOOST_SOURCE_DIR) + "/plots", dir.path().string());
  const auto script = capaboost::testing::read_text(dir.path() / "figure_residual.gp");
  // Series 9 and 10 reuse colours 1 and 2, dashed, with square points.
  CHECK_THAT(script, Contains("index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7"));
  CHECK_THAT(script, Contains("index 8 using 1:2:3 with yerrorlines lt 1 dt 2 lw 2 pt 5"));
  CHECK_THAT(script, Contains("set key outside right top"));
  // Enhanced-text markup in a name is shown literally.
  CHECK_THAT(script, Contains("title \"power\\\\_law\\\\^2\""));
  CHECK(gnuplot_literal("a_b \"c\"") == "a\\\\_b \\\"c\\\"");
}

TEST_CASE("a long caption is broken at spaces into lines that fit the picture", "[harness][report][figure]") {
  const std::string caption =
      "all-MiniLM-L6-v2 (6 x 384, pre-trained); CoLA's full training split, 3 epochs at batch 32 (the paper: 40 "
      "at batch 128), lr 2e-3 (not tuned)";
  const auto lines = wrap_words(caption, 60);
  REQUIRE(lines.size() == 3);
  for (const auto& line : lines) CHECK(line.size() <= 60);
  CHECK(lines[0] == "all-MiniLM-L6-v2 (6 x 384, pre-trained); CoLA's full");
  // Nothing is lost or reordered: the lines joined by spaces are the caption.
  CHECK(lines[0] + " " + lines[1] + " " + lines[2] == caption);
  // A word longer than the width keeps a line of its own; an empty caption gives no line.
  CHECK(wrap_words("a " + std::string(12, 'x') + " b", 5) == std::vector<std::string>{"a", std::string(12, 'x'), "b"});
  CHECK(wrap_words("", 10).empty());
}
