#include "store/store_check.h"

#include "report/aggregate.h"
#include "report/paired_comparison.h"
#include "store/record_store.h"
#include "train/training_scalars.h"
#include "support/read_text.h"
#include "support/reaped_pid.h"
#include "support/temp_dir.h"
#include "util/sha256.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace capaboost::harness;
using capaboost::testing::reaped_child_pid;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// Keys as the planner makes them (64 hex digits), told apart by their first character.
std::string key_of(char c) { return std::string(64, c); }

RunRecord record_of(char c, int seed, double score) {
  RunRecord record;
  record.key = key_of(c);
  record.spec = "rte_demo";
  record.profile = "smoke";
  record.label = c == 'a' || c == 'b' ? "A" : "B";
  record.status = RunStatus::kOk;
  record.config = {{"seed", seed}};
  record.metrics = {{"paper_score", score}};
  return record;
}

RunConfig run_of(const RunRecord& record) {
  RunConfig run;
  run.key = record.key;
  run.label = record.label;
  run.measure = "finetune";
  run.config = record.config;
  return run;
}

bool found(const StoreCheck& check, const std::string& path, const std::string& words) {
  for (const auto& finding : check.findings) {
    if (finding.path == path && finding.problem.find(words) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("fsck finds edited, truncated, orphaned and stale files, quarantines them and loses nothing",
          "[harness][store][fsck]") {
  TempDir dir;
  RecordStore store(dir.path().string());
  RunClaims claims(dir.path().string(), std::chrono::seconds(60));
  std::vector<RunRecord> records = {record_of('a', 42, 70.0), record_of('b', 43, 71.0), record_of('c', 42, 60.0),
                                    record_of('d', 43, 61.0)};
  // Run b kept a tuned state, whose digest its record carries.
  const std::string state_b = store.tuned_state_path(key_of('b'));
  std::ofstream(state_b) << "weights of b";
  records[1].tuned_state_sha256 = capaboost::sha256_file_hex(state_b);
  for (const auto& record : records) store.write(record);
  store.add_to_index(records);
  StoreCheck check = check_store(store, claims);
  CHECK(check.clean());
  CHECK(check.records == 4);
  CHECK(check.sealed == 4);
  CHECK(check.index_rows == 4);

  // Damage: a's score edited by hand, d cut short, b's weights changed, an orphaned state, a stale
  // claim, a temporary of a dead writer; e's state belongs to a run a live process is writing now.
  std::string text = read_text(store.record_path(key_of('a')));
  text.replace(text.find("70.0"), 4, "79.0");
  std::ofstream(store.record_path(key_of('a'))) << text;
  text = read_text(store.record_path(key_of('d')));
  std::ofstream(store.record_path(key_of('d'))) << text.substr(0, 100);
  std::ofstream(state_b) << "other weights";
  std::ofstream(store.tuned_state_path(key_of('f'))) << "nobody's";
  std::ofstream(dir.file("runs/" + key_of('c') + ".json.tmp." + std::to_string(reaped_child_pid()) + ".0")) << "{";
  fs::create_directories(claims.directory());
  std::ofstream(claims.claim_path(key_of('9')))
      << nlohmann::json{{"host", host_name()}, {"pid", reaped_child_pid()}, {"claimed_at", "2026-01-01T00:00:00Z"}}.dump();
  const auto live = claims.try_claim(key_of('e'));
  REQUIRE(live);
  std::ofstream(store.tuned_state_path(key_of('e'))) << "being written";

  check = check_store(store, claims);
  CHECK(check.records == 4);
  CHECK(check.sealed == 2);
  CHECK(found(check, "runs/" + key_of('a') + ".json", "digest does not match"));
  CHECK(found(check, "runs/" + key_of('d') + ".json", "does not parse as JSON"));
  CHECK(found(check, "runs/" + key_of('b') + ".safetensors", "the weights changed after the run"));
  CHECK(found(check, "runs/" + key_of('f') + ".safetensors", "no record names"));
  CHECK(found(check, "claims/" + key_of('9') + ".claim", "stale claim"));
  CHECK(found(check, "index.sqlite", "2 row(s) without a usable record"));
  CHECK_FALSE(found(check, "runs/" + key_of('e') + ".safetensors", ""));
  CHECK_FALSE(found(check, "claims/" + key_of('e') + ".claim", ""));
  bool temporary = false;
  for (const auto& finding : check.findings) temporary = temporary || finding.problem.find("writer is gone") != std::string::npos;
  CHECK(temporary);
  // The damaged record still names its spec and profile: the way to rerun it is given.
  for (const auto& finding : check.findings) {
    if (finding.path == "runs/" + key_of('a') + ".json") {
      CHECK_THAT(finding.rerun, Contains("capaboost run experiments/rte_demo.yaml --profile smoke"));
    }
  }
  CHECK(check.findings.size() == 7);

  // A report never uses the edited record: its run is missing, and the claim says which and why.
  const std::vector<RunConfig> runs = {run_of(records[0]), run_of(records[1]), run_of(records[2]), run_of(records[3])};
  CellTable cells = aggregate(runs, store, "paper_score", "label", "");
  CHECK(cells.cells["A"]["paper_score"].values == std::vector<double>{71.0});
  REQUIRE(cells.cells["A"]["paper_score"].absent.size() == 1);
  CHECK_THAT(cells.cells["A"]["paper_score"].absent[0],
             Contains("seed 42 (run aaaaaaaaaaaa): its record fails its checks"));

  quarantine(store, check);
  REQUIRE_FALSE(check.quarantine.empty());
  const fs::path folder = dir.path() / check.quarantine;
  CHECK(fs::exists(folder / "runs" / (key_of('a') + ".json")));
  CHECK(fs::exists(folder / "runs" / (key_of('d') + ".json")));
  CHECK(fs::exists(folder / "runs" / (key_of('b') + ".safetensors")));
  CHECK(fs::exists(folder / "index.sqlite"));
  CHECK(fs::exists(folder / "claims" / (key_of('9') + ".claim")));
  CHECK_THAT(read_text(folder / "fsck.txt"), Contains("digest does not match"));
  // Nothing deleted: what was moved is byte for byte what was there.
  CHECK(read_text(folder / "runs" / (key_of('a') + ".json")).find("79.0") != std::string::npos);
  CHECK(check.reindexed == 2);
  // The live run's state and claim stay; the good records stay; the store checks clean but for the state
  // of the live run, which is nobody's finding while its claim lives.
  CHECK(fs::exists(store.tuned_state_path(key_of('e'))));
  CHECK(store.read(key_of('b')).has_value());
  const StoreCheck after = check_store(store, claims);
  CHECK(after.findings.size() == 1);  // b's record names a tuned state that is now in quarantine
  CHECK(found(after, "runs/" + key_of('b') + ".safetensors", "not there"));
  CHECK_FALSE(after.findings.front().movable);

  // The report now says the run was quarantined, and where it went.
  cells = aggregate(runs, store, "paper_score", "label", "");
  CHECK_THAT(cells.cells["A"]["paper_score"].absent[0], Contains("seed 42 (run aaaaaaaaaaaa): quarantined by fsck") &&
                                                          Contains(key_of('a') + ".json"));
  ComparisonLayout layout;
  layout.claim = "A beats B";
  layout.a.row = "A";
  layout.b.row = "B";
  const ComparisonResult result = compare(layout, cells, true);
  REQUIRE(result.differences.size() == 1);
  REQUIRE(result.differences[0].absent.size() == 2);
  CHECK_THAT(result.differences[0].absent[0], Contains("A seed 42 (run aaaaaaaaaaaa): quarantined by fsck"));
  CHECK_THAT(result.differences[0].absent[1], Contains("B seed 43 (run dddddddddddd): quarantined by fsck"));
}

TEST_CASE("fsck checks a run's curves against its record and quarantines edited or orphaned ones",
          "[harness][store][fsck][scalars]") {
  TempDir dir;
  RecordStore store(dir.file("results"));
  RunClaims claims(dir.file("results"));
  RunRecord record = record_of('a', 42, 70.0);
  capaboost::write_scalars_csv(store.scalars_path(record.key), {{1, "train/loss", 0.5, 0.1}});
  record.details["scalars"] = {{"file", record.key + ".scalars.csv"}, {"points", 1},
                               {"sha256", capaboost::sha256_file_hex(store.scalars_path(record.key))}};
  store.write(record);
  store.add_to_index({record});
  CHECK(check_store(store, claims).clean());
  CHECK(check_store(store, claims).scalars_files == 1);

  std::ofstream(store.scalars_path(record.key), std::ios::app) << "2,0.2,train/loss,0.4\n";
  capaboost::write_scalars_csv(store.scalars_path(key_of('c')), {{1, "train/loss", 0.5, 0.1}});
  StoreCheck check = check_store(store, claims);
  CHECK(found(check, "runs/" + key_of('a') + ".scalars.csv", "is not the"));
  CHECK(found(check, "runs/" + key_of('c') + ".scalars.csv", "an orphan"));
  quarantine(store, check);
  CHECK_FALSE(fs::exists(store.scalars_path(key_of('a'))));
  CHECK(store.read(key_of('a')).has_value());  // the numbers stand; only the curves moved
  CHECK(check_store(store, claims).clean());
}
