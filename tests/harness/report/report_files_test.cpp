#include "report/report_files.h"

#include "support/temp_dir.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace capaboost::harness;
using capaboost::testing::TempDir;
namespace fs = std::filesystem;

TEST_CASE("a split report's folder is a path name: a value like '..' cannot lead out of the report folder",
          "[harness][report][path_name]") {
  TempDir dir;
  Spec spec;
  spec.name = "split_by_target";
  spec.file = "experiments/split_by_target.yaml";
  spec.report_split = "target";
  RunConfig good, escaping;
  good.key = std::string(64, 'a');
  good.config = {{"target", "flat"}};
  escaping.key = std::string(64, 'b');
  escaping.config = {{"target", ".."}};
  const RecordStore store(dir.file("results"));
  const fs::path out = dir.path() / "reports" / "split_by_target" / "smoke";

  const std::vector<RunConfig> runs = {good};
  ReportInputs inputs{spec, runs, store, "smoke", "plots", RunContext{}};
  inputs.quiet = true;
  CHECK(write_report_files(inputs, out.string()) == 0);
  CHECK(fs::is_directory(out / "flat"));

  const std::vector<RunConfig> hostile = {good, escaping};
  ReportInputs hostile_inputs{spec, hostile, store, "smoke", "plots", RunContext{}};
  hostile_inputs.quiet = true;
  CHECK_THROWS_WITH(write_report_files(hostile_inputs, out.string()),
                    Catch::Contains("experiments/split_by_target.yaml: report.split 'target': the value '..' cannot "
                                    "name a report folder: it contains '..'"));
  // A value with separators keeps its characters out of the path ("a/b" becomes the folder "a-b").
  escaping.config = {{"target", "../../x"}};
  const std::vector<RunConfig> slashed = {escaping};
  ReportInputs slashed_inputs{spec, slashed, store, "smoke", "plots", RunContext{}};
  slashed_inputs.quiet = true;
  CHECK_THROWS_WITH(write_report_files(slashed_inputs, out.string()), Catch::Contains("contains '..'"));
  CHECK_FALSE(fs::exists(dir.path() / "reports" / "split_by_target" / "x"));
}
