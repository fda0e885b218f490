// harness/scripts/fetch_glue.sh, exercised offline: MRPC built from Microsoft's raw files, a task zip
// served from a file:// "mirror", and the clear failure when there is no network.

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "data/glue_loader.h"
#include "lib/data/glue_test_support.h"
#include "support/read_text.h"

using namespace capaboost;
using capaboost::test::ScratchDir;

using capaboost::testing::read_text;

namespace {

const std::string kFetchScript = std::string(CAPABOOST_SOURCE_DIR) + "/harness/scripts/fetch_glue.sh";

// Runs `command` through the shell with stdout+stderr captured; returns (exit status, output).
std::pair<int, std::string> run(const ScratchDir& dir, const std::string& command) {
  const auto log = dir.path / "fetch.log";
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(log)};
}

}  // namespace

TEST_CASE("fetch_glue.sh builds MRPC from Microsoft's files byte-identical to GLUE's",
          "[harness][fetch_glue]") {
  REQUIRE_MIRROR("MRPC");
  const auto mirror = test::mirror_root().path / "MRPC";
  if (!std::filesystem::exists(mirror / "msr_paraphrase_train.txt")) {
    WARN("skipped: the mirror has no raw MRPC files");
    return;
  }
  ScratchDir dir;
  const auto [status, output] =
      run(dir, "MRPC_DIR='" + mirror.string() + "' GLUE_BASE_URL=file:///nonexistent '" + kFetchScript + "' '" +
                   (dir.path / "root").string() + "' mrpc");
  INFO(output);
  REQUIRE(status == 0);
  for (const char* file : {"train.tsv", "dev.tsv", "test.tsv"}) {
    CHECK(read_text(dir.path / "root" / "MRPC" / file) == read_text(mirror / file));
  }
  CHECK_THAT(output, Catch::Contains("train.tsv") && Catch::Contains("3669 lines"));
}

TEST_CASE("fetch_glue.sh unpacks a task zip into <root>/<TASK>/", "[harness][fetch_glue]") {
  REQUIRE_MIRROR("RTE");
  if (std::system("command -v zip > /dev/null 2>&1") != 0) {
    WARN("skipped: the zip tool is not installed (needed to build a test archive)");
    return;
  }
  ScratchDir dir;
  // A stand-in for GLUE's server: RTE.zip holding RTE/{train,dev,test}.tsv, as the real archive does.
  const auto rte = test::mirror_root().path / "RTE";
  for (const char* file : {"train.tsv", "dev.tsv", "test.tsv"}) {
    std::filesystem::create_directories(dir.path / "server" / "RTE");
    std::filesystem::copy_file(rte / file, dir.path / "server" / "RTE" / file);
  }
  REQUIRE(run(dir, "cd '" + (dir.path / "server").string() + "' && zip -qr RTE.zip RTE").first == 0);
  const auto root = dir.path / "root";
  const auto [status, output] = run(dir, "GLUE_BASE_URL='file://" + (dir.path / "server").string() + "' '" +
                                             kFetchScript + "' '" + root.string() + "' RTE");
  INFO(output);
  REQUIRE(status == 0);
  const auto dev = load_glue_file(glue_task("RTE"), DataRoot{root}, GlueFile::kDev);
  CHECK(dev.examples.size() == 277);
  CHECK(read_text(root / "RTE" / "train.tsv") == read_text(rte / "train.tsv"));
  // Only the task folder is left behind (no archive, no work directory).
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    CHECK(entry.path().filename() == "RTE");
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("fetch_glue.sh without network fails clearly and leaves the data root untouched",
          "[harness][fetch_glue]") {
  ScratchDir dir;
  const auto root = dir.path / "root";
  const auto [status, output] = run(
      dir, "GLUE_BASE_URL=file:///nonexistent-glue-server '" + kFetchScript + "' '" + root.string() + "' MNLI");
  CHECK(status == 1);
  CHECK_THAT(output, Catch::Contains("cannot download file:///nonexistent-glue-server/MNLI.zip") &&
                         Catch::Contains("needs internet access"));
  CHECK(std::filesystem::is_empty(root));

  const auto [bad_status, bad_output] = run(dir, "'" + kFetchScript + "' '" + root.string() + "' WNLI");
  CHECK(bad_status == 1);
  CHECK_THAT(bad_output, Catch::Contains("unknown task 'WNLI'") && Catch::Contains("CoLA SST-2 MRPC"));
}
