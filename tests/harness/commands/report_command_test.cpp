// `capaboost report` on a profile that keeps some rows (`keep_rows:`): the runs and the table hold only
// those rows, and a claim naming a row left out says it was not run on that profile instead of "not
// measured", which would read as a gap. Run as a user runs the program, on a Theorem 1 sweep (no data).

#include <catch2/catch.hpp>

#include <fstream>

#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

TEST_CASE("report on a profile with keep_rows: only the kept rows run; a claim on a left-out row says so",
          "[harness][process]") {
  TempDir dir;
  const fs::path spec = dir.path() / "kept_rows.yaml";
  std::ofstream(spec) << "name: kept_rows\n"
                         "measure: theorem1\n"
                         "defaults: {dim: 8, trials: 2, rank: 2}\n"
                         "rows:\n"
                         "  - {label: Low}\n"
                         "  - {label: High, rank: 4}\n"
                         "  - {label: Left out, rank: 3}\n"
                         "seeds: [42, 43]\n"
                         "profiles:\n"
                         "  smoke: {keep_rows: [Low, High]}\n"
                         "report:\n"
                         "  table: {rows: label, columns: dim, metrics: [rank_mean]}\n"
                         "  comparisons:\n"
                         "    - {claim: High beats Low, a: High, b: Low}\n"
                         "    - {claim: High beats the row left out, a: High, b: Left out}\n";
  const auto results = dir.path() / "results";
  const auto out = dir.path() / "report";
  const auto command = [&](const std::string& name, std::vector<std::string> extra) {
    return sweep_args(name, spec, "smoke", results, std::move(extra));
  };

  REQUIRE(run_capaboost(command("run", {}), dir.path() / "run.log") == 0);
  INFO(read_text(dir.path() / "run.log"));
  CHECK_THAT(read_text(dir.path() / "run.log"), Catch::Contains("4 run, 0 failed"));
  REQUIRE(run_capaboost(command("report", {"--out", out.string()}), dir.path() / "report.log") == 0);

  const std::string table = read_text(out / "table.md");
  INFO(table);
  CHECK_THAT(table, Catch::Contains("\n| Low |") && Catch::Contains("\n| High |") &&
                        !Catch::Contains("\n| Left out |"));
  // rank(X+Y) of two random rank-r matrices in 8 dimensions is min(2r, 8): 8 against 4, at both seeds.
  CHECK_THAT(table, Catch::Contains("| High beats Low | High | Low | A − B = +4.0, n = 2 | reproduced |"));
  CHECK_THAT(table, Catch::Contains("| High beats the row left out | High | Left out | a row profile smoke's keep_rows "
                                    "leaves out | not run on profile smoke |"));

  // The paper profile runs every row: there the same claim is planned, with runs to measure it.
  const auto elsewhere = (dir.path() / "other_results").string();
  CHECK(run_capaboost({"plan", spec.string(), "--profile", "paper", "--results", elsewhere}, dir.path() / "plan.log") == 0);
  CHECK_THAT(read_text(dir.path() / "plan.log"),
             Catch::Contains("Left out seed=42") && Catch::Contains("6 runs under profile 'paper'"));
}
