// Golden report: fixed run records (tests/fixtures/report/records) and paper numbers rendered by the
// real aggregation and writers must equal tests/fixtures/report/expected.{tex,csv,md} byte for byte.
// The fixture has two seeds per cell, two learning rates whose eval and test rankings disagree, a
// failed run and a paper-only row. After an intended change of the output, regenerate with
//   CAPABOOST_UPDATE_GOLDEN=1 build/tests/capaboost_tests '[golden]'
// and review the diff of the expected files.

#include "report/aggregate.h"
#include "report/paper_numbers.h"
#include "report/table_writer.h"

#include "harness/fixtures.h"
#include "support/temp_dir.h"
#include "support/read_text.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace capaboost::harness;
namespace fs = std::filesystem;

using capaboost::testing::read_text;

namespace {

// The runs the fixture records belong to: rows × task × lr × seed; keys name the record files.
std::vector<RunConfig> fixture_runs() {
  std::vector<RunConfig> runs;
  for (const auto& [label, slug, branches] :
       {std::tuple{"LoRA", "lora", 1}, std::tuple{"CapaBoost-LoRA", "capaboost-lora", 2}}) {
    for (const std::string task : {"CoLA", "RTE"}) {
      for (const auto& [lr_text, lr] : {std::pair{"1e-4", 1e-4}, std::pair{"5e-4", 5e-4}}) {
        for (const int seed : {42, 43}) {
          RunConfig run;
          run.label = label;
          run.measure = "finetune";
          run.config = {{"method", "lora"}, {"branches", branches}, {"density", 0.5},
                            {"task", task},     {"lr", lr},             {"seed", seed}};
          run.data_fingerprint = "fixture";
          std::string lower = task;
          for (auto& c : lower) c = static_cast<char>(std::tolower(c));
          run.key = fmt::format("{}-{}-lr{}-s{}", slug, lower, lr_text, seed);
          runs.push_back(run);
        }
      }
    }
  }
  return runs;
}

TableDocument fixture_document(const RecordStore& store) {
  TableDocument document;
  document.spec_name = "golden";
  document.title = "Golden fixture: GLUE dev, two learning rates";
  document.profile = "smoke";
  document.metric = "test_score";
  document.column_key = "task";
  document.decimals = 1;
  document.cells = aggregate(fixture_runs(), store, "test_score", "label", "task");
  document.paper = load_paper_numbers(capaboost::harness::testing::fixture("report/paper.yaml"));
  return document;
}

// Copies the fixture records into a scratch results folder (the store writes its index beside them).
void copy_records(const fs::path& results) {
  fs::create_directories(results / "runs");
  for (const auto& entry : fs::directory_iterator(capaboost::harness::testing::fixture("report/records/runs"))) {
    fs::copy_file(entry.path(), results / "runs" / entry.path().filename());
  }
}

}  // namespace

TEST_CASE("the golden fixture aggregates with eval-selected learning rates and failed runs left out",
          "[harness][report][golden]") {
  capaboost::testing::TempDir dir;
  copy_records(dir.path());
  const RecordStore store(dir.path().string());
  const auto document = fixture_document(store);
  REQUIRE(document.cells.rows == std::vector<std::string>{"LoRA", "CapaBoost-LoRA"});
  REQUIRE(document.cells.columns == std::vector<std::string>{"CoLA", "RTE"});
  const auto& cells = document.cells.cells;
  // LoRA on CoLA: lr 1e-4 has the better eval (61 vs 56) but the worse test score (61.5 vs 65).
  CHECK(cells.at("LoRA").at("CoLA").selected_lr == std::optional<double>(1e-4));
  CHECK(cells.at("LoRA").at("CoLA").mean() == Approx(61.5));
  CHECK(cells.at("LoRA").at("RTE").selected_lr == std::optional<double>(5e-4));
  CHECK(cells.at("CapaBoost-LoRA").at("CoLA").mean() == Approx(60.5));
  // CapaBoost-LoRA on RTE at lr 5e-4: seed 43 failed, so one value and one failure.
  const auto& rte = cells.at("CapaBoost-LoRA").at("RTE");
  CHECK(rte.selected_lr == std::optional<double>(5e-4));
  CHECK(rte.values == std::vector<double>{75.0});
  CHECK(rte.failed == 1);
}

TEST_CASE("reports of the golden fixture equal the expected LaTeX CSV and Markdown byte for byte",
          "[harness][report][golden]") {
  capaboost::testing::TempDir dir;
  copy_records(dir.path());
  const RecordStore store(dir.path().string());
  const auto document = fixture_document(store);
  const bool update = std::getenv("CAPABOOST_UPDATE_GOLDEN") != nullptr;
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"expected.tex", render_latex(document)},
      {"expected.csv", render_csv(document)},
      {"expected.md", render_markdown(document)},
  };
  for (const auto& [name, actual] : outputs) {
    const fs::path expected_path = capaboost::harness::testing::fixture("report/" + name);
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << actual;
      WARN("regenerated " << expected_path.string() << "; review its diff before committing");
      continue;
    }
    INFO(name << " differs; if the change is intended, regenerate with CAPABOOST_UPDATE_GOLDEN=1");
    REQUIRE(fs::exists(expected_path));
    CHECK(actual == read_text(expected_path));
  }
}

TEST_CASE("a budget column relative to a row divides every row's mean by that row's", "[harness][report][golden]") {
  capaboost::testing::TempDir dir;
  copy_records(dir.path());
  const RecordStore store(dir.path().string());
  const auto absolute = budget_values(fixture_runs(), store, {"test_score", "score", ""}, "label");
  REQUIRE(absolute.by_row.size() == 2);
  REQUIRE(absolute.problem.empty());
  const auto factor = budget_values(fixture_runs(), store, {"test_score", "score vs LoRA", "LoRA"}, "label");
  CHECK(factor.problem.empty());
  CHECK(factor.by_row.at("LoRA") == 1.0);
  CHECK(factor.by_row.at("CapaBoost-LoRA") ==
        Approx(absolute.by_row.at("CapaBoost-LoRA") / absolute.by_row.at("LoRA")).epsilon(1e-12));
  CHECK(factor.by_row.at("CapaBoost-LoRA") != 1.0);

  // A reference row the sweep does not have (or did not measure) gives no factors, and says why.
  const auto orphan = budget_values(fixture_runs(), store, {"test_score", "FLOPs vs LoRA", "AdaLoRA"}, "label");
  CHECK(orphan.by_row.empty());
  CHECK(orphan.problem == "FLOPs vs LoRA: no measured test_score of row 'AdaLoRA' to divide by");
}
