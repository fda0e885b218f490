// A report over records of two builds, as a user meets it: one record made by a build with another
// numerics fingerprint (rewritten and sealed again here, as another machine or commit would have left it) puts its pair
// across builds; the claim's verdict is withheld and the line names both builds; `status` lists the
// builds; `run --rerun-other-builds` reruns that run alone, and the verdict comes back. Theorem 1 runs
// (no data, seconds).

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>

#include "store/record_digest.h"
#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

TEST_CASE("a pair across numerics fingerprints withholds its verdict until rerun with this build", "[harness][process]") {
  TempDir dir;
  const fs::path spec = dir.path() / "two_builds.yaml";
  std::ofstream(spec) << "name: two_builds\n"
                         "measure: theorem1\n"
                         "defaults: {dim: 8, trials: 2, rank: 2}\n"
                         "rows:\n"
                         "  - {label: Low}\n"
                         "  - {label: High, rank: 4}\n"
                         "seeds: [42, 43]\n"
                         "report:\n"
                         "  table: {rows: label, columns: dim, metrics: [rank_mean]}\n"
                         "  comparisons:\n"
                         "    - {claim: High beats Low, a: High, b: Low}\n";
  const auto results = dir.path() / "results";
  const auto out = dir.path() / "report";
  const auto command = [&](const std::string& name, std::vector<std::string> extra) {
    return sweep_args(name, spec, "smoke", results, std::move(extra));
  };
  REQUIRE(run_capaboost(command("run", {}), dir.path() / "run.log") == 0);
  REQUIRE(run_capaboost(command("report", {"--out", out.string()}), dir.path() / "report.log") == 0);
  CHECK_THAT(read_text(out / "table.md"), Catch::Contains("| High beats Low | High | Low | A − B = +4.0, n = 2 | reproduced |"));

  // Every record names its build and fingerprint; one of them now says another build made it.
  std::string ours;
  for (const auto& [key, record] : records(results)) {
    const auto& provenance = record.at("provenance");
    REQUIRE(provenance.at("numerics").at("fingerprint").get<std::string>().size() == 64);
    REQUIRE(provenance.at("build").contains("commit"));
    ours = provenance.at("numerics").at("fingerprint").get<std::string>();
    if (record.at("label") == "High" && record.at("config").at("seed") == 43) {
      auto other = record;
      other["provenance"]["numerics"]["fingerprint"] = std::string(64, '0');
      // Sealed again, as the other build would have written it: an edit without a new seal is damage.
      std::ofstream(results / "runs" / (key + ".json")) << capaboost::harness::sealed(other).dump(2);
    }
  }
  REQUIRE(run_capaboost(command("report", {"--out", out.string()}), dir.path() / "report.log") == 0);
  const std::string table = read_text(out / "table.md");
  INFO(table);
  CHECK_THAT(table, Catch::Contains("| High beats Low | High | Low | A − B = +4.0, n = 2 | crosses builds — rerun |"));
  CHECK_THAT(table, Catch::Contains(fmt::format("crosses builds (seed 43: numerics 00000000 on cpu vs numerics {} on cpu)",
                                                ours.substr(0, 8))));

  REQUIRE(run_capaboost(command("status", {}), dir.path() / "status.log") == 0);
  const std::string status = read_text(dir.path() / "status.log");
  INFO(status);
  CHECK_THAT(status, Catch::Contains(fmt::format("3 run(s): numerics {} on cpu — this build's numerics", ours.substr(0, 12))));
  CHECK_THAT(status, Catch::Contains("1 run(s): numerics 000000000000 on cpu\n"));

  REQUIRE(run_capaboost(command("run", {"--rerun-other-builds"}), dir.path() / "rerun.log") == 0);
  CHECK_THAT(read_text(dir.path() / "rerun.log"), Catch::Contains("1 run, 0 failed, 3 already recorded"));
  REQUIRE(run_capaboost(command("report", {"--out", out.string()}), dir.path() / "report.log") == 0);
  CHECK_THAT(read_text(out / "table.md"), Catch::Contains("| High beats Low | High | Low | A − B = +4.0, n = 2 | reproduced |"));
}
