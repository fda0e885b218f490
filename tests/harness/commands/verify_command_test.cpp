// `capaboost verify` on a copy of a curated folder (cola_replication on cpu: six records, one table),
// rendered afresh from its records first so the test does not depend on the committed copy's state
// (the verify_curated_folders test checks that): it passes; a hand-edited cell fails it, naming the
// file, the row and the column; an archive holding anything but record files is refused unread, and one
// holding a sealed record edited afterwards fails, naming it; a folder without records fails unless its README says they are lost.

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "store/record_digest.h"
#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/shared_dir.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::shared_dir;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

namespace {

void replace_once(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = read_text(file);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("verify passes a folder equal to its records' rebuild and names a hand-edited cell", "[harness][process]") {
  TempDir dir;
  const fs::path source = fs::path(CAPABOOST_SOURCE_DIR);
  const fs::path folder = dir.path() / "results" / "cpu" / "cola_replication";
  fs::create_directories(folder.parent_path());
  fs::copy(source / "results" / "cpu" / "cola_replication", folder, fs::copy_options::recursive);
  const std::string data = (shared_dir() / "data").string();
  const fs::path scratch = dir.path() / "scratch";
  fs::create_directories(scratch / "runs");
  REQUIRE(std::system(fmt::format("tar -xJf '{}' -C '{}'", (folder / "records.tar.xz").string(),
                                  (scratch / "runs").string()).c_str()) == 0);
  REQUIRE(run_capaboost({"report", (source / "experiments" / "cola_replication.yaml").string(), "--profile", "cpu",
                         "--results", scratch.string(), "--data-root", data, "--out", folder.string(), "--plots",
                         (source / "plots").string()},
                        dir.path() / "report.log") == 0);
  const auto verify = [&]() {
    return run_capaboost({"verify", folder.string(), "--experiments", (source / "experiments").string(), "--data-root",
                          data, "--plots", (source / "plots").string()},
                         dir.path() / "verify.log");
  };
  REQUIRE(verify() == 0);
  CHECK_THAT(read_text(dir.path() / "verify.log"), Catch::Contains("verified") && Catch::Contains("from its 6 records"));

  // One cell of the CSV table, changed by hand: the mean of a measured row.
  const std::string csv = read_text(folder / "table.csv");
  std::smatch line;
  REQUIRE(std::regex_search(csv, line, std::regex("\n(\"LoRA r=8\",\"CoLA\",measured,)([0-9.]+),")));
  replace_once(folder / "table.csv", line[1].str() + line[2].str() + ",", line[1].str() + "99.9,");
  CHECK(verify() == 1);
  const std::string edited = read_text(dir.path() / "verify.log");
  INFO(edited);
  CHECK_THAT(edited, Catch::Contains("FAILED") && Catch::Contains("table.csv line") &&
                         Catch::Contains("(LoRA r=8, CoLA, measured): mean is '99.9' committed, '" + line[2].str() +
                                         "' rebuilt"));

  // An archive is untrusted: a member that is not a record file (a link, a folder path) fails it before
  // anything is unpacked.
  const fs::path saved = dir.path() / "records.tar.xz.saved";
  fs::copy_file(folder / "records.tar.xz", saved);
  const fs::path odd = dir.path() / "odd";
  fs::create_directories(odd / "sub");
  std::ofstream(odd / "sub" / "x.json") << "{}";
  fs::create_symlink("/etc/passwd", odd / "link.json");
  std::ofstream(odd / "notes.txt") << "neither a record nor a run's curves";
  for (const std::string member : {"sub/x.json", "link.json", "notes.txt"}) {
    INFO(member);
    fs::remove(folder / "records.tar.xz");
    REQUIRE(std::system(fmt::format("tar -cJf '{}' -C '{}' '{}'", (folder / "records.tar.xz").string(), odd.string(),
                                    member).c_str()) == 0);
    CHECK(verify() == 1);
    CHECK_THAT(read_text(dir.path() / "verify.log"),
               Catch::Contains("holds '" + member) && Catch::Contains("not a run record") &&
                   Catch::Contains("nothing was unpacked"));
  }
  // A sealed record edited inside the archive is found and not used, whatever the tables say.
  const fs::path repack = dir.path() / "repack";
  fs::create_directories(repack);
  REQUIRE(std::system(fmt::format("tar -xJf '{}' -C '{}'", saved.string(), repack.string()).c_str()) == 0);
  fs::path first;
  for (const auto& entry : fs::directory_iterator(repack)) {
    if (entry.path().extension() == ".json") first = std::max(first, entry.path());  // a record, not its curves
  }
  auto record = capaboost::harness::sealed(nlohmann::json::parse(read_text(first)));
  record["metrics"]["paper_score"] = 99.9;
  std::ofstream(first) << record.dump(1);
  fs::remove(folder / "records.tar.xz");
  REQUIRE(std::system(fmt::format("tar -cJf '{}' -C '{}' .", (folder / "records.tar.xz").string(), repack.string())
                          .c_str()) == 0);
  CHECK(verify() == 1);
  CHECK_THAT(read_text(dir.path() / "verify.log"),
             Catch::Contains("1 of its 6 records fail their checks and were not used") &&
                 Catch::Contains(first.filename().string() + ": its digest does not match"));

  fs::remove(folder / "records.tar.xz");
  fs::copy_file(saved, folder / "records.tar.xz");
  REQUIRE(verify() == 1);  // the table.csv edit above is still there

  // No records: a failure that says what to do, until the README says they are lost.
  fs::remove(folder / "records.tar.xz");
  CHECK(verify() == 1);
  CHECK_THAT(read_text(dir.path() / "verify.log"), Catch::Contains("no records.tar.xz"));
  std::ofstream(folder / "README.md", std::ios::app) << "\nRecords lost: rerun with `make run`.\n";
  CHECK(verify() == 0);
  CHECK_THAT(read_text(dir.path() / "verify.log"), Catch::Contains("its records are lost"));
}
