#include "store/run_record.h"

#include "store/record_store.h"
#include "support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace capaboost::harness;
using capaboost::testing::TempDir;
using Catch::Contains;

TEST_CASE("a run record round-trips through JSON with its schema version", "[harness][store]") {
  RunRecord record;
  record.key = "abc";
  record.spec = "table1_rank";
  record.status = RunStatus::kOk;
  record.config = {{"rank", 8}, {"mask_seed", 0}};
  record.metrics = {{"rank", 8.0}};
  record.wall_time_s = 1.5;
  const auto json = record.to_json();
  CHECK(json.at("schema_version") == kRunRecordSchema);
  CHECK(json.at("status") == "ok");
  const RunRecord back = RunRecord::from_json(json, "abc.json");
  CHECK(back.ok());
  CHECK(back.config == record.config);
  CHECK(back.metrics == record.metrics);
  CHECK(back.wall_time_s == 1.5);
  CHECK(back.to_json() == json);
}

TEST_CASE("schema-1 records load; unknown statuses and newer schemas are refused by file", "[harness][store]") {
  const auto v1 = nlohmann::json::parse(R"({"key": "k1", "status": "failed", "reason": "NaN",
                                            "parameters": {"rank": 8}, "code_version": "capaboost-bench/1"})");
  const RunRecord old = RunRecord::from_json(v1, "k1.json");
  CHECK(old.schema_version == 1);
  CHECK_FALSE(old.ok());
  CHECK(old.reason == "NaN");
  CHECK(old.config == nlohmann::json({{"rank", 8}}));

  auto unknown = v1;
  unknown["status"] = "okay";
  CHECK_THROWS_WITH(RunRecord::from_json(unknown, "k1.json"), Contains("k1.json: unknown run status 'okay'"));
  auto newer = v1;
  newer["schema_version"] = kRunRecordSchema + 1;
  CHECK_THROWS_WITH(RunRecord::from_json(newer, "k1.json"), Contains("newer than this program"));
  CHECK_THROWS_WITH(RunRecord::from_json(nlohmann::json::object(), "x.json"), Contains("x.json: not a run record"));
}

TEST_CASE("the store writes typed records and rebuilds an index of older code", "[harness][store]") {
  TempDir dir;
  RecordStore store(dir.path().string());
  RunRecord record;
  record.key = "k2";
  record.status = RunStatus::kFailed;
  record.reason = "diverged";
  store.write(record);
  // Writing a record leaves the index alone: one process per sweep indexes.
  CHECK_FALSE(std::filesystem::exists(store.index_path()));
  store.add_to_index({record});
  CHECK(std::filesystem::exists(store.index_path()));
  const auto read = store.read("k2");
  REQUIRE(read.has_value());
  CHECK(read->reason == "diverged");
  CHECK_FALSE(store.has_ok("k2"));
  CHECK(store.all().size() == 1);
  // A corrupt record is named with the fix.
  std::ofstream(store.record_path("bad")) << "{ not json";
  CHECK_THROWS_WITH(store.read("bad"), Contains("bad.json: this run record cannot be used: it does not parse") &&
                                           Contains("capaboost fsck --repair"));
  std::filesystem::remove(store.record_path("bad"));
  CHECK(store.reindex() == 1);
}

TEST_CASE("a results folder that cannot be created is named with the fix", "[harness][store]") {
  TempDir dir;
  std::ofstream(dir.file("a-file")) << "x";
  CHECK_THROWS_WITH(RecordStore(dir.file("a-file") + "/results"), Contains("a-file/results") && Contains("writable"));
}
