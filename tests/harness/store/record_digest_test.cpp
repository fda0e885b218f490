#include "store/record_digest.h"

#include "store/record_store.h"
#include "store/run_record.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

using namespace capaboost::harness;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

RunRecord example_record() {
  RunRecord record;
  record.key = "a1b2c3";
  record.spec = "table1_rank";
  record.profile = "smoke";
  record.status = RunStatus::kOk;
  record.config = {{"rank", 8}, {"lr", 0.0005}, {"seed", 42}};
  record.metrics = {{"paper_score", 61.23456789012345}, {"eval_loss", NAN}, {"rank", 8.0}};
  return record;
}

}  // namespace

TEST_CASE("a sealed record's digest survives the file's round trip and nothing else", "[harness][store][digest]") {
  const auto json = sealed(example_record().to_json());
  REQUIRE(json.at("digest").get<std::string>().rfind("sha256:", 0) == 0);
  CHECK(json.at("digest").get<std::string>().size() == 7 + 64);
  // As the store writes it (indented) and reads it back: same digest, though NaN became null.
  const auto back = nlohmann::json::parse(json.dump(1));
  CHECK_FALSE(seal_problem(back));
  CHECK(record_digest(back) == json.at("digest"));

  auto edited = back;
  edited["metrics"]["paper_score"] = 61.23456789012346;  // one unit in the last place
  const auto problem = seal_problem(edited);
  REQUIRE(problem);
  CHECK_THAT(*problem, Contains("does not match its content") && Contains("edited or damaged"));

  auto unsigned_copy = back;
  unsigned_copy.erase("digest");
  CHECK_THAT(*seal_problem(unsigned_copy), Contains("has no digest, which records of schema 3 carry"));
  auto not_text = back;
  not_text["digest"] = 7;
  CHECK(*seal_problem(not_text) == "its digest is not a string");
}

TEST_CASE("records written before seals (schema 2) read as unsealed, not as damaged", "[harness][store][digest]") {
  auto old = example_record().to_json();
  old["schema_version"] = 2;
  CHECK_FALSE(seal_problem(old));
  CHECK(is_unsealed(old));
  CHECK_FALSE(is_unsealed(sealed(old)));
}

TEST_CASE("the store seals what it writes and never hands out a record that fails its checks", "[harness][store][digest]") {
  TempDir dir;
  RecordStore store(dir.path().string());
  store.write(example_record());
  const StoredRecord good = store.inspect("a1b2c3");
  REQUIRE(good.record);
  CHECK(good.problem.empty());
  CHECK_FALSE(good.unsealed);
  CHECK(read_text(store.record_path("a1b2c3")).find("\"digest\": \"sha256:") != std::string::npos);

  // Edited by hand: one digit of a metric.
  std::string text = read_text(store.record_path("a1b2c3"));
  const auto at = text.find("61.2345");
  REQUIRE(at != std::string::npos);
  text[at] = '9';
  std::ofstream(store.record_path("a1b2c3")) << text;
  const StoredRecord edited = store.inspect("a1b2c3");
  CHECK_FALSE(edited.record);
  CHECK_THAT(edited.problem, Contains("digest does not match"));
  CHECK_THROWS_WITH(store.read("a1b2c3"), Contains("a1b2c3.json: this run record cannot be used") &&
                                              Contains("capaboost fsck --repair"));
  CHECK(store.all().empty());

  // Truncated (a copy cut short), and a record filed under another run's name.
  text = read_text(store.record_path("a1b2c3"));
  std::ofstream(store.record_path("a1b2c3")) << text.substr(0, text.size() / 2);
  CHECK_THAT(store.inspect("a1b2c3").problem, Contains("does not parse as JSON"));
  std::ofstream(store.record_path("a1b2c3")) << "";
  CHECK(store.inspect("a1b2c3").problem == "it is empty");
  store.write(example_record());
  std::filesystem::rename(store.record_path("a1b2c3"), store.record_path("ffff00"));
  CHECK_THAT(store.inspect("ffff00").problem, Contains("holds the record of run a1b2c3, not of ffff00"));
  const StoredRecord gone = store.inspect("a1b2c3");
  CHECK_FALSE(gone.record);
  CHECK(gone.problem.empty());
}

TEST_CASE("a run key that is not a path name never becomes a file", "[harness][store][path_name]") {
  TempDir dir;
  RecordStore store(dir.path().string());
  RunRecord record = example_record();
  record.key = "../../outside";
  CHECK_THROWS_WITH(store.write(record), Contains("run key '../../outside' cannot be a file name"));
  CHECK_THROWS_WITH(store.tuned_state_path("a/b"), Contains("contains '/'"));
  CHECK_FALSE(std::filesystem::exists(dir.path().parent_path() / "outside.json"));
}
