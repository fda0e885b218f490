// harness/scripts/compare_device_records.py pairs the records of one spec run twice (on the CPU and on a
// GPU in harness/scripts/device_check.sh; here twice on the CPU, with different thread counts): the
// data order and mask digests of a run must agree, and a changed one is named and fails the comparison.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/data/glue_test_support.h"
#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::TempDir;
using capaboost::testing::read_text;
using capaboost::testing::program::records;
using capaboost::testing::program::run_capaboost;

namespace {

const std::string kCompareScript = std::string(CAPABOOST_SOURCE_DIR) + "/harness/scripts/compare_device_records.py";
const std::string kSpec = std::string(CAPABOOST_SOURCE_DIR) + "/experiments/device_check.yaml";

int compare(const fs::path& first, const fs::path& second, const fs::path& log) {
  const std::string command = "python3 '" + kCompareScript + "' '" + first.string() + "' '" + second.string() + "' > '" +
                              log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("compare_device_records: two runs of one spec agree on data order and masks; a changed digest fails",
          "[harness][scripts][process]") {
  TempDir dir;
  const fs::path one = dir.path() / "one", two = dir.path() / "two", log = dir.path() / "log.txt";
  for (const auto& [results, threads] : {std::pair{one, "1"}, std::pair{two, "2"}}) {
    INFO(read_text(log));
    REQUIRE(run_capaboost({"--threads", threads, "run", kSpec, "--profile", "smoke", "--results", results.string(),
                           "--data-root", capaboost::test::mirror_root().path},
                          log) == 0);
  }
  REQUIRE(compare(one, two, log) == 0);
  const std::string agreed = read_text(log);
  INFO(agreed);
  CHECK_THAT(agreed, Catch::Contains("LoRA: data order same") && Catch::Contains("CapaBoost-LoRA (d=2): data order same") &&
                         Catch::Contains("masks same") && Catch::Contains("masks none"));

  // The CapaBoost run's record on the second "device" with other masks: named, and the exit status is 1.
  bool changed = false;
  for (const auto& [key, record] : records(two)) {
    if (!record.at("details").contains("masks_sha256")) continue;
    auto edited = record;
    edited["details"]["masks_sha256"] = std::string(64, '0');
    std::ofstream(two / "runs" / (key + ".json")) << edited.dump();
    changed = true;
  }
  REQUIRE(changed);
  CHECK(compare(one, two, log) == 1);
  CHECK_THAT(read_text(log), Catch::Contains("MISMATCH: CapaBoost-LoRA (d=2): masks_sha256 differs"));
}
