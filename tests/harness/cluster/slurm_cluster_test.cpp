// `capaboost run --backend slurm` against a real one-node SLURM cluster started by the test: array
// tasks write the records a local run writes, status follows queued and cancelled tasks from squeue
// alone (no accounting daemon), and a second submission sends only what is missing.

#include "support/capaboost_program.h"
#include "support/one_node_slurm.h"
#include "support/read_text.h"
#include "support/temp_dir.h"
#include "support/text_helpers.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

namespace fs = std::filesystem;
using capaboost::testing::OneNodeSlurm;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

using capaboost::testing::count_occurrences;

namespace {

std::string job_id_in(const std::string& log) {
  std::smatch match;
  REQUIRE(std::regex_search(log, match, std::regex("as SLURM job array ([0-9]+)")));
  return match[1];
}

// Polls `status` until it exits with `wanted` (or `seconds` pass); returns its last exit code.
int wait_for_status(const std::vector<std::string>& status_args, const fs::path& log, int wanted, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int code = -1;
  while ((code = run_capaboost(status_args, log)) != wanted && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return code;
}

}  // namespace

TEST_CASE("a sweep on a one-node SLURM cluster records what a local run records", "[harness][process][slurm]") {
  OneNodeSlurm cluster;
  if (!cluster.ready()) {
    WARN("skipped: no SLURM cluster could be started here: " << cluster.why_not());
    return;
  }
  TempDir dir;
  const auto spec = write_theorem1_spec(dir.path(), 16, 4, 3, "[42, 43]").string();  // 6 runs
  const auto local = dir.path() / "local";
  const auto results = dir.path() / "cluster";
  REQUIRE(run_capaboost({"run", spec, "--profile", "paper", "--results", local.string()}, dir.path() / "local.log") == 0);
  const std::vector<std::string> submit{"run", spec, "--profile", "paper", "--results", results.string(),
                                        "--backend", "slurm", "--cpus-per-run", "1", "--max-parallel", "2"};
  const std::vector<std::string> status{"status", spec, "--profile", "paper", "--results", results.string()};
  const auto log = dir.path() / "capaboost.log";

  // Held in the queue for an hour: status says queued from squeue, and submitting again sends nothing.
  auto held = submit;
  held.push_back("--sbatch=--begin=now+3600");
  REQUIRE(run_capaboost(held, log) == 0);
  INFO(read_text(log));
  CHECK(read_text(log).find("submitted 6 runs") != std::string::npos);
  const std::string held_job = job_id_in(read_text(log));
  CHECK(run_capaboost(status, log) == 4);
  CHECK(count_occurrences(read_text(log), "queued  ") == 6);
  CHECK(read_text(log).find("6 queued") != std::string::npos);
  REQUIRE(run_capaboost(submit, log) == 0);
  CHECK(read_text(log).find("nothing to submit (0 recorded, 6 queued or running in SLURM") != std::string::npos);

  // Cancelled: the tasks leave the queue without records, and status says so for each.
  REQUIRE(std::system(("scancel " + held_job).c_str()) == 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (run_capaboost(status, log) == 4 && count_occurrences(read_text(log), "left the queue") < 6 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  CHECK(count_occurrences(read_text(log), "left the queue") == 6);
  CHECK(read_text(log).find("6 missing") != std::string::npos);

  // Submitted again, the array runs: the records equal the local run's, status indexes them.
  REQUIRE(run_capaboost(submit, log) == 0);
  CHECK(read_text(log).find("submitted 6 runs") != std::string::npos);
  REQUIRE(wait_for_status(status, log, 0, 180) == 0);
  const auto expected = metrics(local);
  CHECK(metrics(results) == expected);
  CHECK(indexed_rows(results / "index.sqlite") == expected.size());
  for (const auto& [key, record] : records(results)) CHECK(record.at("provenance").contains("slurm_job"));
  CHECK(fs::is_empty(results / "claims"));

  // A lost record is the only run the next submission sends; the dry run before it writes nothing.
  fs::remove(results / "runs" / (expected.begin()->first + ".json"));
  const auto folders = std::distance(fs::directory_iterator(results / "slurm"), fs::directory_iterator());
  auto dry = submit;
  dry.push_back("--dry-run");
  REQUIRE(run_capaboost(dry, log) == 0);
  CHECK(read_text(log).find("#SBATCH --array=0-0%2") != std::string::npos);
  CHECK(std::distance(fs::directory_iterator(results / "slurm"), fs::directory_iterator()) == folders);
  REQUIRE(run_capaboost(submit, log) == 0);
  CHECK(read_text(log).find("submitted 1 run as") != std::string::npos);
  REQUIRE(wait_for_status(status, log, 0, 120) == 0);
  CHECK(metrics(results) == expected);
}
