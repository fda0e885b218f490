// The paper's numbers in experiments/paper/*.yaml: every file loads, has the rows and values that
// were transcribed, and sample values match the paper's LaTeX source cell for cell (when
// ../shared/seeds holds it).

#include "report/paper_numbers.h"
#include "harness/fixtures.h"
#include "spec/diagnostics.h"
#include "support/paper_tex.h"
#include "support/read_text.h"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace capaboost::harness;
namespace fs = std::filesystem;

using capaboost::testing::plain_cell;
using capaboost::testing::read_text;
using capaboost::testing::tex_table;

namespace {

const fs::path kPaperDir = fs::path(CAPABOOST_SOURCE_DIR) / "experiments" / "paper";

struct Shape {
  size_t rows;
  size_t columns;  ///< distinct column labels over all rows
  size_t values;   ///< (row, column) entries
};

// What was transcribed from each table (see the comment at the top of each file).
const std::map<std::string, Shape> kShapes = {
    {"table1_rank.yaml", {3, 4, 12}},
    {"table1_rank_params.yaml", {3, 4, 12}},
    {"table2_glue_roberta_base.yaml", {10, 9, 90}},
    {"table2_glue_roberta_base_budget.yaml", {10, 2, 17}},
    {"table3_glue_deberta_v3_base.yaml", {10, 9, 90}},
    {"table3_glue_deberta_v3_base_budget.yaml", {10, 2, 18}},
    {"table4_squad_em.yaml", {22, 3, 39}},
    {"table4_squad_f1.yaml", {22, 3, 39}},
    {"table4_squad_budget.yaml", {16, 1, 16}},
    {"table5_vtab1k.yaml", {6, 13, 78}},
    {"appendix_nm_sparsity.yaml", {2, 9, 18}},
    {"appendix_regularization_baselines.yaml", {4, 9, 36}},
};

// One value of a file and where it is printed in the paper: the data row of table `tex_label`
// whose first cell reads `tex_row` (the file's row label when empty; `occurrence` picks among equal
// first cells), cell `cell` counted from 0 at the row label, and of a cell "a/b" the part `part`.
struct SpotCheck {
  std::string file, row, column, tex_label;
  int cell;
  std::string tex_row = "";
  int occurrence = 0;
  int part = -1;
};

const std::vector<SpotCheck> kSpotChecks = {
    {"table1_rank.yaml", "LoRA", "8", "tab:rank", 1},
    {"table1_rank.yaml", "CapaBoost-LoRA (d=2)", "32", "tab:rank", 3},
    {"table1_rank.yaml", "CapaBoost-LoRA (d=4)", "64", "tab:rank", 4},
    {"table1_rank_params.yaml", "LoRA", "16", "tab:rank", 2, "\\#Param", 0},
    {"table1_rank_params.yaml", "CapaBoost-LoRA (d=2)", "8", "tab:rank", 1, "\\#Param", 1},
    {"table1_rank_params.yaml", "CapaBoost-LoRA (d=4)", "8", "tab:rank", 1, "\\#Param", 2},
    {"table1_rank_params.yaml", "CapaBoost-LoRA (d=4)", "16", "tab:rank", 2, "\\#Param", 2},
    {"table2_glue_roberta_base.yaml", "Fine-tuning", "QQP", "tab:GLUE_RoBERTa_base", 6},
    {"table2_glue_roberta_base.yaml", "AdaLoRA", "RTE", "tab:GLUE_RoBERTa_base", 10},
    {"table2_glue_roberta_base.yaml", "CapaBoost-PAdapter", "All", "tab:GLUE_RoBERTa_base", 11},
    {"table2_glue_roberta_base_budget.yaml", "Fine-tuning", "FT params %", "tab:GLUE_RoBERTa_base", 1},
    {"table2_glue_roberta_base_budget.yaml", "ProPETL-LoRA", "FLOPs vs LoRA", "tab:GLUE_RoBERTa_base", 2},
    {"table2_glue_roberta_base_budget.yaml", "CapaBoost-PAdapter", "FT params %", "tab:GLUE_RoBERTa_base", 1},
    {"table3_glue_deberta_v3_base.yaml", "BitFit", "CoLA", "tab:GLUE_DeBERTaV3_base", 3},
    {"table3_glue_deberta_v3_base.yaml", "CapaBoost-LoRA", "MNLI", "tab:GLUE_DeBERTaV3_base", 8},
    {"table3_glue_deberta_v3_base.yaml", "ProPETL-PAdapter", "STS-B", "tab:GLUE_DeBERTaV3_base", 7},
    {"table3_glue_deberta_v3_base_budget.yaml", "BitFit", "FT params %", "tab:GLUE_DeBERTaV3_base", 1},
    {"table3_glue_deberta_v3_base_budget.yaml", "CapaBoost-PAdapter", "FLOPs vs LoRA", "tab:GLUE_DeBERTaV3_base", 2},
    {"table3_glue_deberta_v3_base_budget.yaml", "PAdapter", "FLOPs vs LoRA", "tab:GLUE_DeBERTaV3_base", 2},
    {"table4_squad_em.yaml", "Full FT", "SQuADv2.0", "tab:squad_experiemnts", 2, "", 0, 0},
    {"table4_squad_em.yaml", "PAdapter 0.65%", "SQuADv2.0", "tab:squad_experiemnts", 8, "PAdapter", 0, 0},
    {"table4_squad_em.yaml", "CapaBoost-PAdapter 0.06%", "SQuADv1.1", "tab:squad_experiemnts", 1, "CapaBoost-PAdapter", 0, 0},
    {"table4_squad_f1.yaml", "Full FT", "SQuADv1.1", "tab:squad_experiemnts", 1, "", 0, 1},
    {"table4_squad_f1.yaml", "LoRA 0.16%", "SQuADv2.0", "tab:squad_experiemnts", 6, "LoRA", 0, 1},
    {"table4_squad_f1.yaml", "CapaBoost-PAdapter 0.49%", "SQuADv2.0", "tab:squad_experiemnts", 8, "CapaBoost-PAdapter", 0, 1},
    {"table4_squad_em.yaml", "LoRA (Avg)", "Avg", "tab:squad_experiemnts", 9, "LoRA", 0, 0},
    {"table4_squad_em.yaml", "Full FT (Avg)", "Avg", "tab:squad_experiemnts", 3, "Full FT", 0, 0},
    {"table4_squad_f1.yaml", "CapaBoost-PAdapter (Avg)", "Avg", "tab:squad_experiemnts", 9, "CapaBoost-PAdapter", 0, 1},
    {"table4_squad_f1.yaml", "HAdapter (Avg)", "Avg", "tab:squad_experiemnts", 9, "HAdapter", 0, 1},
    {"table4_squad_budget.yaml", "HAdapter 0.32%", "FT params %", "tab:squad_experiemnts", 3, "FT Params", 0},
    {"table4_squad_budget.yaml", "LoRA 0.08%", "FT params %", "tab:squad_experiemnts", 1, "FT Params", 0},
    {"table4_squad_budget.yaml", "CapaBoost-PAdapter 0.49%", "FT params %", "tab:squad_experiemnts", 8, "FT Params", 1},
    {"table5_vtab1k.yaml", "VPT-Deep", "CIFAR-100", "tab:vtab1k", 1},
    {"table5_vtab1k.yaml", "CapaBoost-LoRA (d=2)", "Clevr-Count", "tab:vtab1k", 8},
    {"table5_vtab1k.yaml", "CapaBoost-LoRA (d=4)", "Average", "tab:vtab1k", 13},
    {"appendix_nm_sparsity.yaml", "Random-masking CapaBoost-LoRA", "Average", "tab:nm_sparsity", 1},
    {"appendix_nm_sparsity.yaml", "2:4 Sparsity CapaBoost-LoRA", "MRPC", "tab:nm_sparsity", 5},
    {"appendix_nm_sparsity.yaml", "2:4 Sparsity CapaBoost-LoRA", "QQP", "tab:nm_sparsity", 9},
    {"appendix_regularization_baselines.yaml", "AdaMix", "STS-B", "tab:regularization_baselines", 4},
    {"appendix_regularization_baselines.yaml", "Dropout-CapaBoost-PAdapter", "SST-2", "tab:regularization_baselines", 7},
    {"appendix_regularization_baselines.yaml", "CapaBoost-PAdapter", "CoLA", "tab:regularization_baselines", 2},
};

// The value of (row, column) in a paper file exactly as written there ("94.00", "63.86±0.7").
std::string raw_value(const fs::path& file, const std::string& row, const std::string& column) {
  for (const auto& entry : YAML::LoadFile(file.string())["rows"]) {
    if (entry["label"].as<std::string>() == row && entry["values"][column]) return entry["values"][column].Scalar();
  }
  FAIL("no value for row '" << row << "', column '" << column << "' in " << file.string());
  return "";
}

}  // namespace

TEST_CASE("every paper-numbers file loads with the rows and values transcribed", "[harness][paper]") {
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(kPaperDir)) {
    const auto name = entry.path().filename().string();
    if (name == "settings.yaml") continue;  // the paper's settings, not its numbers (spec/paper_settings_test.cpp)
    INFO(name);
    REQUIRE(kShapes.count(name));  // a new file needs its shape listed here
    seen.insert(name);
    const auto numbers = load_paper_numbers(entry.path().string());
    CHECK_FALSE(numbers.source.empty());
    CHECK_FALSE(numbers.metric.empty());
    std::set<std::string> columns;
    size_t values = 0;
    for (const auto& [row, by_column] : numbers.rows) {
      values += by_column.size();
      for (const auto& [column, value] : by_column) columns.insert(column);
    }
    CHECK(numbers.rows.size() == kShapes.at(name).rows);
    CHECK(numbers.row_order.size() == numbers.rows.size());
    CHECK(columns.size() == kShapes.at(name).columns);
    CHECK(values == kShapes.at(name).values);
  }
  CHECK(seen.size() == kShapes.size());
}

TEST_CASE("paper-numbers files keep the paper's row order and its ± spreads", "[harness][paper]") {
  const auto table2 = load_paper_numbers((kPaperDir / "table2_glue_roberta_base.yaml").string());
  REQUIRE(table2.row_order.size() == 10);
  CHECK(table2.row_order.front() == "Fine-tuning");
  CHECK(table2.row_order.back() == "CapaBoost-PAdapter");
  const auto& adalora = table2.rows.at("AdaLoRA").at("RTE");
  CHECK(adalora.mean == Approx(76.49));
  REQUIRE(adalora.std);
  CHECK(*adalora.std == Approx(2.0));
  CHECK_FALSE(table2.rows.at("LoRA").at("CoLA").std);  // reported without ± in the paper
}

TEST_CASE("sample paper numbers match the cells of the paper's LaTeX source", "[harness][paper]") {
  const auto tex_file = capaboost::testing::paper_tex_path();
  if (!fs::exists(tex_file)) {
    WARN("skipped: the paper's source is not at " << tex_file.string() << " (set CAPABOOST_SHARED_DIR)");
    return;
  }
  const std::string tex = read_text(tex_file);
  std::map<std::string, int> checks_per_file;
  for (const auto& check : kSpotChecks) {
    INFO(check.file << ": " << check.row << " / " << check.column << " in " << check.tex_label);
    const auto rows = tex_table(tex, check.tex_label);
    REQUIRE_FALSE(rows.empty());
    const std::string wanted_row = check.tex_row.empty() ? check.row : check.tex_row;
    int occurrence = 0;
    const std::vector<std::string>* found = nullptr;
    for (const auto& cells : rows) {
      std::string first = cells.front();
      if (!first.empty() && first.back() == '*') first.pop_back();  // "reported in prior works"
      if (first == wanted_row && occurrence++ == check.occurrence) found = &cells;
    }
    REQUIRE(found);
    REQUIRE(check.cell < static_cast<int>(found->size()));
    std::string printed = (*found)[check.cell];
    if (check.part >= 0) {
      std::istringstream parts(printed);
      for (int i = 0; i <= check.part; ++i) std::getline(parts, printed, '/');
      printed = plain_cell(printed);
    }
    CHECK(raw_value(kPaperDir / check.file, check.row, check.column) == printed);
    ++checks_per_file[check.file];
  }
  for (const auto& [file, shape] : kShapes) {
    INFO(file);
    CHECK(checks_per_file[file] >= 3);
  }
}

TEST_CASE("Table 4's Avg is each method's mean over its budgets and versions, as printed", "[harness][paper]") {
  for (const char* file : {"table4_squad_em.yaml", "table4_squad_f1.yaml"}) {
    const auto numbers = load_paper_numbers((kPaperDir / file).string());
    for (const char* method : {"Full FT", "HAdapter", "PAdapter", "LoRA", "CapaBoost-PAdapter"}) {
      INFO(file << ": " << method);
      double sum = 0;
      int cells = 0;
      for (const auto& [row, by_column] : numbers.rows) {
        if (row.rfind(method, 0) != 0 || row.find("(Avg)") != std::string::npos) continue;
        // "PAdapter 0.08%" but not "CapaBoost-PAdapter …" for PAdapter: the label starts with the method.
        for (const auto& [column, value] : by_column) {
          sum += value.mean;
          ++cells;
        }
      }
      CHECK(cells == (std::string(method) == "Full FT" ? 2 : 8));
      // Printed to one decimal from the unrounded cells: within half a unit of the last digit, and a hair.
      CHECK(numbers.rows.at(std::string(method) + " (Avg)").at("Avg").mean == Approx(sum / cells).margin(0.051));
    }
  }
}

TEST_CASE("a paper's average column is the mean of each row's other columns, as printed", "[harness][paper]") {
  // The one row whose printed average is not the mean of its printed tasks (88.853), kept as printed.
  const std::set<std::pair<std::string, std::string>> kPrintedOtherwise = {
      {"table3_glue_deberta_v3_base.yaml", "ProPETL-PAdapter"}};
  std::set<std::string> with_average;
  for (const auto& entry : fs::directory_iterator(kPaperDir)) {
    const auto name = entry.path().filename().string();
    if (name == "settings.yaml") continue;
    const auto numbers = load_paper_numbers(entry.path().string());
    if (numbers.average.empty()) continue;
    with_average.insert(name);
    for (const auto& [row, values] : numbers.rows) {
      INFO(name << ": " << row);
      REQUIRE(values.count(numbers.average));
      double sum = 0;
      for (const auto& [column, value] : values) sum += column == numbers.average ? 0 : value.mean;
      const double mean = sum / static_cast<double>(values.size() - 1);
      if (kPrintedOtherwise.count({name, row})) {
        CHECK(std::abs(values.at(numbers.average).mean - mean) > 0.01);
      } else {
        // Printed to two decimals from unrounded scores (NOAH's: 73.11 where its printed tasks give 73.117).
        CHECK(values.at(numbers.average).mean == Approx(mean).margin(0.01));
      }
    }
  }
  CHECK(with_average == std::set<std::string>{"table2_glue_roberta_base.yaml", "table3_glue_deberta_v3_base.yaml",
                                              "table5_vtab1k.yaml"});
}

TEST_CASE("an average naming a column no row has is refused with the file and line", "[harness][paper]") {
  const auto file = capaboost::harness::testing::fixture("report/bad/average_names_no_column.yaml");
  CHECK_THROWS_WITH(load_paper_numbers(file),
                    Catch::Contains("average_names_no_column.yaml:4") && Catch::Contains("'average: Avg' names a column"));
}
