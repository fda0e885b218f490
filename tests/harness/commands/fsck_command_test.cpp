// `capaboost fsck` as a user runs it on a results folder with one record edited by hand: it names the file
// and exits 1; --repair moves it to quarantine/, says how to rerun it and exits 0; the folder is clean after.

#include <catch2/catch.hpp>

#include <fstream>

#include "store/record_store.h"
#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

TEST_CASE("fsck names an edited record, --repair quarantines it, and the folder checks clean after",
          "[harness][process][fsck]") {
  TempDir dir;
  const fs::path results = dir.path() / "results";
  {
    capaboost::harness::RecordStore store(results.string());
    for (const char c : {'1', '2'}) {
      capaboost::harness::RunRecord record;
      record.key = std::string(64, c);
      record.spec = "rte_demo";
      record.profile = "cpu";
      record.status = capaboost::harness::RunStatus::kOk;
      record.metrics = {{"paper_score", 60.5}};
      store.write(record);
      store.add_to_index({record});
    }
  }
  const auto fsck = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"fsck", "--results", results.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_capaboost(args, dir.path() / "fsck.log");
  };
  REQUIRE(fsck({}) == 0);
  CHECK_THAT(read_text(dir.path() / "fsck.log"), Catch::Contains("2 record(s) (2 sealed") && Catch::Contains("clean"));

  const fs::path edited = results / "runs" / (std::string(64, '2') + ".json");
  std::string text = read_text(edited);
  text.replace(text.find("60.5"), 4, "65.5");
  std::ofstream(edited) << text;
  CHECK(fsck({}) == 1);
  const std::string found = read_text(dir.path() / "fsck.log");
  CHECK_THAT(found, Catch::Contains("PROBLEM  runs/" + edited.filename().string() + ": its digest does not match") &&
                        Catch::Contains("capaboost run experiments/rte_demo.yaml --profile cpu") &&
                        Catch::Contains("fsck --repair"));
  CHECK(fs::exists(edited));  // without --repair nothing moves

  CHECK(fsck({"--repair"}) == 0);
  const std::string repaired = read_text(dir.path() / "fsck.log");
  CHECK_THAT(repaired, Catch::Contains("moved    runs/" + edited.filename().string() + " -> quarantine/") &&
                           Catch::Contains("rebuilt the index from 1 record(s)"));
  CHECK_FALSE(fs::exists(edited));
  CHECK(fsck({}) == 0);
  CHECK_THAT(read_text(dir.path() / "fsck.log"), Catch::Contains("clean"));
}
