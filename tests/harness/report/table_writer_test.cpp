// Paper-only rows: rows of the paper's numbers that no spec row measures (methods the suite does
// not run) are shown after the measured rows, marked *, in the paper file's order.

#include "report/table_writer.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

// One measured row (LoRA) beside paper numbers for LoRA and two methods the suite does not run.
TableDocument document_with_paper_only_rows() {
  TableDocument document;
  document.spec_name = "glue";
  document.title = "GLUE";
  document.profile = "smoke";
  document.metric = "test_score";
  document.cells.rows = {"LoRA"};
  document.cells.columns = {"CoLA"};
  Cell cell;
  cell.values = {61.0, 62.0};
  cell.keys = {"k1", "k2"};
  document.cells.cells["LoRA"]["CoLA"] = cell;
  PaperNumbers paper;
  paper.metric = "test_score";
  paper.rows["Prefix-Tuning"]["CoLA"] = {63.27, std::nullopt};
  paper.rows["LoRA"]["CoLA"] = {62.24, std::nullopt};
  paper.rows["AdaMix"]["CoLA"] = {63.19, 1.1};
  paper.row_order = {"Prefix-Tuning", "LoRA", "AdaMix"};  // not alphabetical: file order must win
  document.paper = paper;
  return document;
}

}  // namespace

TEST_CASE("LaTeX shows paper-only rows after the measured rows in paper order", "[harness][report]") {
  const auto latex = render_latex(document_with_paper_only_rows());
  const auto lora_paper = latex.find("LoRA* & $62.2$ \\\\\n");
  const auto lora_ours = latex.find("LoRA (ours) & $\\mathbf{61.5_{\\pm 0.7}}$ \\\\\n");
  const auto prefix = latex.find("\\midrule\nPrefix-Tuning* & $63.3$ \\\\\n");
  const auto adamix = latex.find("AdaMix* & $63.2_{\\pm 1.1}$ \\\\\n");
  REQUIRE(lora_paper != std::string::npos);
  REQUIRE(lora_ours != std::string::npos);
  REQUIRE(prefix != std::string::npos);
  REQUIRE(adamix != std::string::npos);
  CHECK(lora_paper < lora_ours);
  CHECK(lora_ours < prefix);
  CHECK(prefix < adamix);
}

TEST_CASE("Markdown and CSV show paper-only rows too", "[harness][report]") {
  const auto document = document_with_paper_only_rows();
  const auto markdown = render_markdown(document);
  CHECK_THAT(markdown, Catch::EndsWith("| LoRA (ours) | 61.5 ± 0.7 |\n| Prefix-Tuning* | 63.3 |\n| AdaMix* | 63.2 ± 1.1 |\n"));
  const auto csv = render_csv(document);
  CHECK_THAT(csv, Catch::EndsWith("\"Prefix-Tuning\",\"CoLA\",paper,63.27,,,,,,\n\"AdaMix\",\"CoLA\",paper,63.19,1.1,,,,,\n"));
}

TEST_CASE("without paper-only rows the LaTeX table has no extra rule", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  document.paper->rows.erase("Prefix-Tuning");
  document.paper->rows.erase("AdaMix");
  document.paper->row_order = {"LoRA"};
  const auto latex = render_latex(document);
  CHECK(latex.find("\\midrule\n\\bottomrule") == std::string::npos);
  CHECK(latex.find("Prefix-Tuning") == std::string::npos);
  CHECK_THAT(latex, Catch::Contains("LoRA (ours) & $\\mathbf{61.5_{\\pm 0.7}}$ \\\\\n\\bottomrule"));
}

TEST_CASE("a single-seed cell shows its value without a spread", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  document.cells.cells["LoRA"]["CoLA"].values = {61.0};
  document.cells.cells["LoRA"]["CoLA"].keys = {"k1"};
  CHECK_THAT(render_markdown(document), Catch::Contains("| LoRA (ours) | 61.0 |\n"));
  CHECK_THAT(render_latex(document), Catch::Contains("LoRA* & $62.2$ \\\\\nLoRA (ours) & $\\mathbf{61.0}$ \\\\\n"));
  CHECK_THAT(render_csv(document), Catch::Contains("\"LoRA\",\"CoLA\",measured,61,,1,0,0,,k1\n"));
}

TEST_CASE("columns the profile does not run keep the paper's numbers and show n/a for ours", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  document.profile = "mini";
  document.column_key = "task";
  document.absent_columns = {"MNLI"};
  document.paper->rows["LoRA"]["MNLI"] = {86.59, std::nullopt};
  const auto markdown = render_markdown(document);
  CHECK_THAT(markdown, Catch::Contains("MNLI not run on profile mini (n/a)."));
  document.caption = "One epoch.";  // a caption's own full stop is not doubled
  CHECK_THAT(render_markdown(document), Catch::Contains("\n\nOne epoch. MNLI not run on profile mini (n/a).\n\n"));
  document.caption = "One epoch";
  CHECK_THAT(render_markdown(document), Catch::Contains("\n\nOne epoch. MNLI not run on profile mini (n/a).\n\n"));
  CHECK_THAT(markdown, Catch::Contains("| LoRA* | 62.2 | 86.6 |\n| LoRA (ours) | 61.5 ± 0.7 | n/a |\n"));
  const auto latex = render_latex(document);
  CHECK_THAT(latex, Catch::Contains("\\begin{tabular}{lcc}"));
  CHECK_THAT(latex, Catch::Contains("LoRA (ours) & $\\mathbf{61.5_{\\pm 0.7}}$ & n/a \\\\\n"));
  const auto csv = render_csv(document);
  CHECK_THAT(csv, Catch::Contains("\"LoRA\",\"MNLI\",paper,86.59,,,,,,\n\"LoRA\",\"MNLI\",not run,,,0,0,0,,\n"));
}

TEST_CASE("columns neither run nor reported by the paper are named in the caption, not shown", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  document.profile = "cpu";
  document.column_key = "task";
  document.absent_columns = {"MNLI", "QQP"};
  document.paper->rows["LoRA"]["MNLI"] = {86.59, std::nullopt};
  move_unreported_absent_columns(document);
  CHECK(document.absent_columns == std::vector<std::string>{"MNLI"});
  CHECK(document.unreported_columns == std::vector<std::string>{"QQP"});
  const auto markdown = render_markdown(document);
  CHECK_THAT(markdown, Catch::Contains("MNLI, QQP not run on profile cpu (n/a)."));
  CHECK_THAT(markdown, Catch::Contains("| LoRA* | 62.2 | 86.6 |\n| LoRA (ours) | 61.5 ± 0.7 | n/a |\n"));
  CHECK(render_csv(document).find("QQP") == std::string::npos);
  // Without paper numbers in any absent column, no column is left to mark n/a.
  document.paper->rows["LoRA"].erase("MNLI");
  document.absent_columns = {"MNLI", "QQP"};
  document.unreported_columns.clear();
  move_unreported_absent_columns(document);
  CHECK(document.absent_columns.empty());
  const auto without = render_markdown(document);
  CHECK_THAT(without, Catch::Contains("MNLI, QQP not run on profile cpu.\n"));
  CHECK(without.find("n/a") == std::string::npos);
  CHECK_THAT(render_latex(document), Catch::Contains("MNLI, QQP not run on profile cpu.}"));
}

TEST_CASE("budget columns follow the method name, the paper's budget beside ours", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  document.budget_titles = {"FT params %"};
  document.budget["LoRA"]["FT params %"] = 0.946;
  PaperNumbers budget;
  budget.metric = "budget";
  budget.rows["LoRA"]["FT params %"] = {0.95, std::nullopt};
  budget.rows["Prefix-Tuning"]["FT params %"] = {0.95, std::nullopt};
  document.paper_budget = budget;
  const auto markdown = render_markdown(document);
  CHECK_THAT(markdown, Catch::Contains("| Method | FT params % | CoLA |\n|---|---|---|\n"));
  CHECK_THAT(markdown, Catch::Contains("| LoRA* | 0.95 | 62.2 |\n| LoRA (ours) | 0.95 | 61.5 ± 0.7 |\n"));
  CHECK_THAT(markdown, Catch::Contains("| AdaMix* | – | 63.2 ± 1.1 |"));  // no budget printed for it
  const auto latex = render_latex(document);
  CHECK_THAT(latex, Catch::Contains("\\begin{tabular}{lcc}"));
  CHECK_THAT(latex, Catch::Contains("Prefix-Tuning* & 0.95 & $63.3$ \\\\\n"));
  const auto csv = render_csv(document);
  CHECK_THAT(csv, Catch::Contains("\"LoRA\",\"FT params %\",paper,0.95,,,,,,\n\"LoRA\",\"FT params %\",measured,0.946,,,,,,\n"));
}

TEST_CASE("the header counts the seeds measured, and the planned ones while some are missing", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  auto& cell = document.cells.cells["LoRA"]["CoLA"];
  cell.seeds = {42, 43};
  cell.planned = 2;
  CHECK_THAT(render_markdown(document), Catch::Contains("profile `smoke`, 2 seed(s); * = paper"));
  // A sweep curated after its first seed: one of three planned seeds in every cell.
  cell.values = {61.0};
  cell.keys = {"k1"};
  cell.seeds = {42};
  cell.planned = 3;
  cell.missing = 2;
  CHECK_THAT(render_markdown(document), Catch::Contains("profile `smoke`, 1 of 3 planned seed(s); * = paper"));
  CHECK_THAT(render_latex(document), Catch::Contains("over 1 of 3 planned seed(s), profile \\texttt{smoke}"));
  // Seeds spread over cells (42 in one, 43 in another) count once each.
  document.cells.columns.push_back("SST-2");
  Cell other;
  other.values = {90.0};
  other.keys = {"k2"};
  other.seeds = {43};
  other.planned = 3;
  document.cells.cells["LoRA"]["SST-2"] = other;
  CHECK_THAT(render_markdown(document), Catch::Contains("1–2 of 3 planned seed(s)"));
  // One cell complete (shared with another spec's runs), the other at its first seed: a range, not "3 seed(s)".
  document.cells.cells["LoRA"]["CoLA"].values = {61.0, 62.0, 63.0};
  document.cells.cells["LoRA"]["CoLA"].seeds = {42, 43, 44};
  CHECK(seed_phrase(document.cells) == "1–3 of 3 planned seed(s)");
}

TEST_CASE("the seed phrase is the one a figure's subtitle shows for the same cells", "[harness][report]") {
  auto document = document_with_paper_only_rows();
  auto& cell = document.cells.cells["LoRA"]["CoLA"];
  cell.seeds = {44};
  cell.values = {60.0};
  cell.planned = 3;
  CHECK(seed_phrase(document.cells) == "1 of 3 planned seed(s)");
  cell.seeds = {42, 43, 44};
  cell.values = {60.0, 61.0, 62.0};
  CHECK(seed_phrase(document.cells) == "3 seed(s)");
  CHECK(seed_phrase(CellTable{}) == "0 seed(s)");
}
