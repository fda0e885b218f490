// harness/scripts/records_archive.sh keeps a curated folder's run records beside it (records.tar.xz) and
// brings them back on another machine: the records of the keys in run_keys.txt go in, byte-stable; a
// restore adds exactly those records to an empty results folder, the program then counts them as
// finished runs, and a record the machine already has is never overwritten.

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/record_digest.h"
#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::TempDir;
using capaboost::testing::read_text;
using capaboost::testing::program::records;
using capaboost::testing::program::run_capaboost;
using capaboost::testing::program::write_theorem1_spec;

namespace {

const std::string kArchiveScript = std::string(CAPABOOST_SOURCE_DIR) + "/harness/scripts/records_archive.sh";

// Runs the script with `args` (each single-quoted), output to `log`; returns the exit status.
int archive_script(const std::string& args, const fs::path& log) {
  const int status = std::system(("bash '" + kArchiveScript + "' " + args + " > '" + log.string() + "' 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

}  // namespace

TEST_CASE("records_archive: a curated folder's records go beside it and come back on another machine",
          "[harness][scripts][process]") {
  TempDir dir;
  const fs::path ran = dir.path() / "ran", folder = dir.path() / "curated", log = dir.path() / "log.txt";
  const auto spec = write_theorem1_spec(dir.path(), 8, 2, 3, "[42, 43]").string();
  REQUIRE(run_capaboost({"run", spec, "--results", ran.string()}, log) == 0);
  const auto ran_records = records(ran);
  REQUIRE(ran_records.size() == 6);

  // run_keys.txt as the curate step writes it (12-hex prefixes), plus a planned run that has no record.
  fs::create_directories(folder);
  {
    std::ofstream keys(folder / "run_keys.txt");
    for (const auto& [key, record] : ran_records) keys << key.substr(0, 12) << "\n";
    keys << "0123456789ab\n";
  }
  // One run kept curves (a fine-tuning run does): they travel with its record, byte for byte.
  const std::string curved = ran_records.begin()->first;
  std::ofstream(ran / "runs" / (curved + ".scalars.csv")) << "step,seconds,tag,value\n1,0.100,train/loss,0.5\n";
  REQUIRE(archive_script("pack " + quoted(folder) + " " + quoted(ran), log) == 0);
  CHECK_THAT(read_text(log), Catch::Contains("holds 6 records (1 with curves) of 7 planned runs"));
  const std::string archive = read_text(folder / "records.tar.xz");
  REQUIRE(archive.size() > 0);

  // The same records give the same bytes: re-curating an unchanged folder changes nothing in git.
  REQUIRE(archive_script("pack " + quoted(folder) + " " + quoted(ran), log) == 0);
  CHECK(read_text(folder / "records.tar.xz") == archive);

  SECTION("restored into an empty results folder, they are the program's finished runs") {
    const fs::path fresh = dir.path() / "fresh";
    REQUIRE(archive_script("restore " + quoted(fresh) + " " + quoted(folder), log) == 0);
    CHECK_THAT(read_text(log), Catch::Contains("6 records added"));
    const auto restored = records(fresh);
    REQUIRE(restored.size() == 6);
    for (const auto& [key, record] : ran_records) {
      INFO(key);
      CHECK(read_text(fresh / "runs" / (key + ".json")) == read_text(ran / "runs" / (key + ".json")));
    }
    CHECK(read_text(fresh / "runs" / (curved + ".scalars.csv")) == read_text(ran / "runs" / (curved + ".scalars.csv")));
    REQUIRE(run_capaboost({"reindex", "--results", fresh.string()}, log) == 0);
    REQUIRE(run_capaboost({"status", spec, "--results", fresh.string()}, log) == 0);
    INFO(read_text(log));
    CHECK_THAT(read_text(log), Catch::Contains("6 ok, 0 failed, 0 missing"));
  }

  SECTION("a record the machine already has is kept, not overwritten by the archived one") {
    const fs::path local = dir.path() / "local";
    const std::string key = ran_records.begin()->first;
    fs::create_directories(local / "runs");
    const std::string mine = "{\"key\": \"" + key + "\", \"note\": \"this machine's rerun\"}\n";
    std::ofstream(local / "runs" / (key + ".json")) << mine;
    REQUIRE(archive_script("restore " + quoted(local) + " " + quoted(folder), log) == 0);
    CHECK_THAT(read_text(log), Catch::Contains("5 records added"));
    CHECK(read_text(local / "runs" / (key + ".json")) == mine);
  }

  SECTION("a damaged archive is named, with the fix") {
    std::ofstream(folder / "records.tar.xz", std::ios::trunc) << "not an archive";
    CHECK(archive_script("restore " + quoted(dir.path() / "other") + " " + quoted(folder), log) == 1);
    CHECK_THAT(read_text(log), Catch::Contains((folder / "records.tar.xz").string()) && Catch::Contains("git checkout"));
  }

  SECTION("a folder without run_keys.txt is refused with the command that writes it") {
    fs::remove(folder / "run_keys.txt");
    CHECK(archive_script("pack " + quoted(folder) + " " + quoted(ran), log) == 1);
    CHECK_THAT(read_text(log), Catch::Contains("run_keys.txt is missing") && Catch::Contains("make curate-"));
  }
}

TEST_CASE("records_archive: a sealed record goes in byte for byte, an old one without its singular values",
          "[harness][scripts][process]") {
  TempDir dir;
  const fs::path ran = dir.path() / "ran", folder = dir.path() / "curated", log = dir.path() / "log.txt";
  fs::create_directories(ran / "runs");
  fs::create_directories(folder);
  const nlohmann::json sites = {{"site", {{"rank", 8}, {"singular_values", {3.0, 2.0, 1.0}}}}};
  const std::string old_key(64, 'a'), sealed_key(64, 'b');
  nlohmann::json old_record = {{"key", old_key}, {"schema_version", 2}, {"details", {{"training", {{"site_ranks", sites}}}}}};
  nlohmann::json sealed_record = capaboost::harness::sealed(
      {{"key", sealed_key}, {"schema_version", 3}, {"details", {{"training", {{"site_ranks", sites}}}}}});
  std::ofstream(ran / "runs" / (old_key + ".json")) << old_record.dump(1);
  std::ofstream(ran / "runs" / (sealed_key + ".json")) << sealed_record.dump(1);
  std::ofstream(folder / "run_keys.txt") << old_key.substr(0, 12) << "\n" << sealed_key.substr(0, 12) << "\n";
  REQUIRE(archive_script("pack " + quoted(folder) + " " + quoted(ran), log) == 0);
  const fs::path unpacked = dir.path() / "unpacked";
  fs::create_directories(unpacked);
  REQUIRE(std::system(("tar -xJf " + quoted(folder / "records.tar.xz") + " -C " + quoted(unpacked)).c_str()) == 0);
  // The seal covers every byte: trimmed, the record would be refused as edited.
  CHECK(read_text(unpacked / (sealed_key + ".json")) == read_text(ran / "runs" / (sealed_key + ".json")));
  CHECK_FALSE(capaboost::harness::seal_problem(nlohmann::json::parse(read_text(unpacked / (sealed_key + ".json")))));
  const auto trimmed = nlohmann::json::parse(read_text(unpacked / (old_key + ".json")));
  CHECK_FALSE(trimmed["details"]["training"]["site_ranks"]["site"].contains("singular_values"));
  CHECK(trimmed["details"]["training"]["site_ranks"]["site"]["rank"] == 8);
}
