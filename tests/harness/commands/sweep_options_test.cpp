// --seeds: the sweep commands restricted to some of a profile's seeds, as `make run` uses it for a first
// table from one seed before the rest. Run as a user runs the program, on a Theorem 1 sweep (no data).

#include "commands/sweep_options.h"

#include <catch2/catch.hpp>

#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

TEST_CASE("a sweep kept to some seeds (--seeds) runs, counts and refuses by seed; the other seeds' records are not stale", "[harness][process]") {
  TempDir dir;
  const auto spec = write_theorem1_spec(dir.path(), 8, 2, 2, "[42, 43, 44]");  // ranks 1, 2 × three seeds
  const auto results = dir.path() / "results";
  const auto command = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{name, spec.string(), "--profile", "paper", "--results", results.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  REQUIRE(run_capaboost(command("run", {"--seeds", "43"}), dir.path() / "first.log") == 0);
  CHECK_THAT(read_text(dir.path() / "first.log"), Catch::Contains("2 run, 0 failed"));
  REQUIRE(records(results).size() == 2);
  for (const auto& [key, record] : records(results)) CHECK(record.at("config").at("seed") == 43);

  // Counted within the seed, and against the whole profile without it: seed 43's records are the
  // profile's own, not "keys no current run has".
  CHECK(run_capaboost(command("status", {"--seeds", "43"}), dir.path() / "status43.log") == 0);
  CHECK_THAT(read_text(dir.path() / "status43.log"), Catch::Contains("2 ok, 0 failed, 0 missing"));
  CHECK(run_capaboost(command("status", {}), dir.path() / "status.log") == 4);  // four runs missing
  CHECK_THAT(read_text(dir.path() / "status.log"),
             Catch::Contains("2 ok, 0 failed, 4 missing") && !Catch::Contains("have keys no current run has"));

  // Several seeds, comma-separated; a rerun of everything then finds them all.
  REQUIRE(run_capaboost(command("run", {"--seeds", "42,44"}), dir.path() / "rest.log") == 0);
  CHECK_THAT(read_text(dir.path() / "rest.log"), Catch::Contains("4 run, 0 failed"));
  REQUIRE(run_capaboost(command("run", {}), dir.path() / "all.log") == 0);
  CHECK_THAT(read_text(dir.path() / "all.log"), Catch::Contains("0 run, 0 failed, 6 already recorded"));

  // A seed the profile does not plan is refused, naming those it does.
  CHECK(run_capaboost(command("run", {"--seeds", "45"}), dir.path() / "bad.log") == 1);
  CHECK_THAT(read_text(dir.path() / "bad.log"),
             Catch::Contains("--seeds 45: profile 'paper' plans no run with that seed; its seeds are 42, 43, 44"));
}
