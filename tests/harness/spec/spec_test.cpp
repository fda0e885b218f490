#include "spec/spec.h"

#include "plan/plan.h"

#include "harness/fixtures.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace capaboost::harness;
namespace fs = std::filesystem;

TEST_CASE("every bad spec fails with exactly its expected messages, all at once", "[harness][spec]") {
  // Approval style: tests/fixtures/specs/bad/X.yaml must produce the lines of X.expected (file names
  // shown relative to the folder), from loading and from resolving every profile's runs. A new bad
  // case is one more pair of files.
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(capaboost::harness::testing::fixture("specs/bad"))) {
    if (entry.path().extension() != ".yaml") continue;
    ++cases;
    const auto expected_path = fs::path(entry.path()).replace_extension(".expected");
    INFO(entry.path().filename().string());
    REQUIRE(fs::exists(expected_path));
    std::ifstream expected_file(expected_path);
    std::stringstream expected;
    expected << expected_file.rdbuf();

    std::string actual;
    try {
      load_checked_spec(entry.path().string());
    } catch (const SpecError& e) {
      for (auto d : e.diagnostics()) {
        d.file = fs::path(d.file).filename().string();
        actual += d.format() + "\n";
      }
    }
    CHECK(actual == expected.str());
  }
  CHECK(cases >= 6);
}

TEST_CASE("a good spec loads with defaults, rows, axes and merged profiles", "[harness][spec]") {
  const Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/sweep.yaml"));
  CHECK(spec.name == "sweep");
  CHECK(spec.measure == "finetune");
  REQUIRE(spec.rows.size() == 2);
  CHECK(spec.rows[1].parameters.at("branches") == 2);
  CHECK(spec.defaults.at("targets") == nlohmann::json({"query"}));
  CHECK(spec.seeds == std::vector<int64_t>{1, 2, 3});
  CHECK(spec.lr_grid == std::vector<double>{0.001, 0.01});
  REQUIRE(spec.grid.size() == 1);
  CHECK(spec.grid[0].name == "density");
  CHECK(spec.grid[0].mark.line == 9);
  // profiles.yaml beside the spec supplies mini; the spec's own smoke overlay is kept.
  CHECK(spec.profiles.at("mini").seeds == std::vector<int64_t>{11, 12});
  CHECK(spec.profiles.at("mini").set.at("lora_init") == "reference");
  CHECK(spec.profiles.at("smoke").set.at("rank") == 1);
  REQUIRE(spec.table.has_value());
  CHECK(spec.table->columns == "density");
}
