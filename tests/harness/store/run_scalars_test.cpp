#include "store/run_scalars.h"

#include <catch2/catch.hpp>

#include <fstream>

#include "support/temp_dir.h"
#include "util/sha256.h"

using namespace capaboost;
using namespace capaboost::harness;
using Catch::Contains;

namespace {

RunRecord record_with_scalars(const RecordStore& store, const std::string& key) {
  write_scalars_csv(store.scalars_path(key), {{1, "train/loss", 0.5, 0.1}, {2, "train/loss", 0.25, 0.2}});
  RunRecord record;
  record.key = key;
  record.status = RunStatus::kOk;
  record.details["scalars"] = {{"file", key + ".scalars.csv"}, {"points", 2},
                               {"sha256", sha256_file_hex(store.scalars_path(key))}};
  return record;
}

}  // namespace

TEST_CASE("a run's curves are read back only while they are what the run wrote", "[harness][store][scalars]") {
  capaboost::testing::TempDir dir;
  RecordStore store(dir.file("results"));
  const std::string key(64, 'a');
  const RunRecord record = record_with_scalars(store, key);
  REQUIRE(has_run_scalars(record));
  CHECK(read_run_scalars(store, record).size() == 2);

  SECTION("edited") {
    std::ofstream(store.scalars_path(key), std::ios::app) << "3,0.3,train/loss,0.1\n";
    CHECK_THROWS_WITH(read_run_scalars(store, record),
                      Contains(store.scalars_path(key)) && Contains("is not the") && Contains("fsck --repair"));
  }
  SECTION("missing") {
    std::filesystem::remove(store.scalars_path(key));
    CHECK_THROWS_WITH(read_run_scalars(store, record), Contains(store.scalars_path(key) + " is missing"));
  }
  SECTION("a record from before curves") {
    RunRecord old = record;
    old.details.erase("scalars");
    CHECK_FALSE(has_run_scalars(old));
    CHECK_THROWS_WITH(read_run_scalars(store, old), Contains("kept no curves"));
  }
}
