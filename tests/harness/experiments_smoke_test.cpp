// Every experiment spec under experiments/ runs and reports on its `smoke` profile through the
// `capaboost` program, as a user runs it: a spec whose smoke profile breaks is caught in CI, not by the
// first researcher who tries the paper profile. Specs whose smoke runs need the suite's smoke encoder
// are skipped with a message when its corpus sources are absent (`make corpus-sources`).

#include "support/temp_dir.h"
#include "support/read_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "util/sha256.h"
#include "support/shared_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::TempDir;

using capaboost::testing::read_text;

using capaboost::testing::shared_dir;

namespace {

int run_program(const std::string& arguments, const fs::path& log) {
  const std::string command = "'" + std::string(CAPABOOST_BINARY) + "' " + arguments + " > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("every experiment spec runs and reports on its smoke profile", "[harness][process][smoke]") {
  TempDir dir;
  int ran = 0, skipped = 0;
  std::vector<fs::path> specs, waiting;
  for (const auto& entry : fs::directory_iterator(std::string(CAPABOOST_SOURCE_DIR) + "/experiments")) {
    if (entry.path().extension() == ".yaml" && entry.path().filename() != "profiles.yaml") specs.push_back(entry.path());
  }
  // A spec may read what another makes (capacity_per_parameter_real reads the weight updates that
  // capacity_targets saves): one stopped by a missing input runs again after all the others.
  for (int pass = 0; pass < 2; ++pass) for (const auto& path : pass == 0 ? specs : std::exchange(waiting, {})) {
    const std::string spec = path.string();
    const std::string name = path.stem().string();
    INFO(name);
    const fs::path results = dir.path() / "results";
    const fs::path log = dir.path() / (name + ".log");
    const int status = run_program("run '" + spec + "' --profile smoke --results '" + results.string() +
                                       "' --data-root '" + (shared_dir() / "data").string() + "'",
                                   log);
    // A set-up error (exit 5) names what the machine lacks: the corpus sources of the smoke encoder,
    // the offline data mirror or another spec's output. Anything else is a broken spec.
    if (status == 5 && pass == 0) {
      waiting.push_back(path);
      continue;
    }
    if (status == 5) {
      WARN("skipped " << name << ": " << read_text(log));
      ++skipped;
      continue;
    }
    INFO(read_text(log));
    REQUIRE(status == 0);
    const fs::path out = dir.path() / "reports" / name;
    REQUIRE(run_program("report '" + spec + "' --profile smoke --results '" + results.string() + "' --data-root '" +
                            (shared_dir() / "data").string() + "' --out '" +
                            out.string() + "' --plots '" + CAPABOOST_SOURCE_DIR + "/plots'",
                        log) == 0);
    int reports = 0;
    // A split report (report.split) writes one folder per value.
    for (const auto& file : fs::recursive_directory_iterator(out)) {
      reports += file.path().extension() == ".md" || file.path().extension() == ".csv";
    }
    CHECK(reports > 0);
    ++ran;
  }
  CHECK(ran >= 1);

  // A run from a checkpoint (the smoke encoder here) records the file and digest of the weights it
  // loaded; a run on random weights records none.
  int with_weights = 0;
  for (const auto& file : fs::directory_iterator(dir.path() / "results" / "runs")) {
    if (file.path().extension() != ".json") continue;
    const auto record = nlohmann::json::parse(read_text(file.path()));
    const auto& details = record.at("details");
    if (!details.contains("backbone")) continue;  // not a fine-tuning run
    const std::string backbone = details.at("backbone");
    INFO(file.path().string() << ": " << backbone);
    // Every fine-tuning run records its data order's digest, and a CapaBoost run with static masks the
    // digest of its masks (docs/clusters-and-gpus.md: the runs of one key on two devices compare them).
    CHECK(details.at("training").at("data_order_sha256").get<std::string>().size() == 64);
    const auto& config = record.at("config");
    if (config.value("branches", 1) > 1 && config.value("mask", std::string("none")) != "none" &&
        config.value("mask", std::string()) != "dropout") {
      CHECK(details.at("masks_sha256").get<std::string>().size() == 64);
    }
    const bool random = backbone.find("randomly initialised") != std::string::npos;
    REQUIRE(details.contains("backbone_weights") == !random);
    if (random) continue;
    const auto& weights = details.at("backbone_weights");
    CHECK(weights.at("sha256") == capaboost::sha256_file_hex(weights.at("file").get<std::string>()));
    ++with_weights;
  }
  if (skipped == 0) CHECK(with_weights > 0);
}
