// `capaboost squad-eval` as a user runs it: the official script's JSON for the file's version, and a
// clear error for a predictions file of the wrong shape.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "data/squad_dataset.h"
#include "lib/data/glue_test_support.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using Catch::Contains;

TEST_CASE("squad-eval prints the v2.0 script's keys for the v2.0 sample", "[harness][process][squad]") {
  const auto sample = capaboost::test::mirror_root().path / "SQuAD" / "sample-hf-v2-format.json";
  if (!std::filesystem::exists(sample)) {
    WARN("skipped: " << sample << " not found (set CAPABOOST_DATA_DIR to the mirror)");
    return;
  }
  capaboost::testing::TempDir dir;
  nlohmann::json predictions = nlohmann::json::object();
  for (const auto& question : capaboost::load_squad(sample.string()).questions) {
    predictions[question.id] = question.answers.empty() ? "" : question.answers.front().text;
  }
  std::ofstream(dir.file("pred.json")) << predictions.dump();
  const std::string program = std::string("'") + CAPABOOST_BINARY + "' squad-eval '" + sample.string() + "' ";
  const auto scored = capaboost::testing::run_command(program + "'" + dir.file("pred.json") + "'");
  REQUIRE(scored.exit_code == 0);
  CHECK(scored.output ==
        "{\n  \"exact\": 100.0,\n  \"f1\": 100.0,\n  \"total\": 14,\n  \"HasAns_exact\": 100.0,\n  \"HasAns_f1\": 100.0,\n"
        "  \"HasAns_total\": 8,\n  \"NoAns_exact\": 100.0,\n  \"NoAns_f1\": 100.0,\n  \"NoAns_total\": 6\n}\n");

  std::ofstream(dir.file("list.json")) << "[\"Denver Broncos\"]";
  const auto wrong = capaboost::testing::run_command(program + "'" + dir.file("list.json") + "'");
  CHECK(wrong.exit_code == 1);
  CHECK_THAT(wrong.output, Contains("list.json: predictions must be {\"question id\": \"text\", …}"));
}
