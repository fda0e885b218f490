// The `capaboost run` program as a user runs it: parallel workers give the same records as one
// process, and a sweep killed with SIGKILL leaves readable records that a rerun keeps untouched
// while it completes the rest.

#include "support/capaboost_program.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

#include "pretrain/backbone_builder.h"
#include "support/text_helpers.h"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using capaboost::testing::TempDir;
using namespace capaboost::testing::program;

using capaboost::testing::read_text;

using capaboost::testing::count_occurrences;

namespace {

size_t count_records(const fs::path& runs) {
  size_t n = 0;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(runs, ignored)) n += entry.path().extension() == ".json";
  return n;
}

// Starts `capaboost args…` in a process group of its own (its workers join it), output to `log`.
pid_t start_group(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> all{kBinary};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : all) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  REQUIRE(log_fd >= 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setpgid(0, 0);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(child, child);  // also from here, so the group exists before any kill
  ::close(log_fd);
  return child;
}

// SIGKILL to the whole group (the sweep and its workers), returning once every member is gone.
void kill_group(pid_t group) {
  ::kill(-group, SIGKILL);
  int status = 0;
  waitpid(group, &status, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::kill(-group, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}


}  // namespace

TEST_CASE("run --jobs 2 records the same keys and metrics as --jobs 1", "[harness][process]") {
  TempDir dir;
  // Four ranks × two seeds: each worker gets runs of both seeds.
  const auto spec = write_theorem1_spec(dir.path(), 16, 4, 4, "[42, 43]").string();
  const auto serial = dir.path() / "serial";
  const auto parallel = dir.path() / "parallel";
  REQUIRE(run_capaboost({"run", spec, "--profile", "paper", "--results", serial.string(), "--jobs", "1"},
                        dir.path() / "serial.log") == 0);
  const int status = run_capaboost({"run", spec, "--profile", "paper", "--results", parallel.string(), "--jobs", "2"},
                                   dir.path() / "parallel.log");
  INFO(read_text(dir.path() / "parallel.log"));
  REQUIRE(status == 0);
  CHECK_THAT(read_text(dir.path() / "parallel.log"), Catch::Contains("starting 2 workers"));
  CHECK_THAT(read_text(dir.path() / "parallel.log"), Catch::Contains(": 8 run, 0 failed, 0 already recorded"));
  const auto one = metrics(serial);
  const auto two = metrics(parallel);
  CHECK(one.size() == 8);
  CHECK(one == two);
}

TEST_CASE("a sweep killed with SIGKILL resumes without rewriting finished records", "[harness][process]") {
  TempDir dir;
  // Small runs: what takes the time is writing each record and its index row (both synced).
  constexpr int kRuns = 40;
  const auto spec = write_theorem1_spec(dir.path(), 16, 2, kRuns / 2, "[42, 43]");
  const auto results = dir.path() / "results";
  const auto runs = results / "runs";
  const auto log = dir.path() / "killed.log";

  const pid_t child = start_group({"run", spec.string(), "--profile", "paper", "--results", results.string()}, log);
  // Kill it once a few records are on disk (and before it could finish).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count_records(runs) < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  INFO(read_text(log));
  REQUIRE(WIFSIGNALED(status));  // otherwise the sweep ended before the kill: make it bigger

  // Every record left behind parses, and the index is rebuilt from exactly those records.
  const auto before = records(results);
  REQUIRE(before.size() >= 3);
  REQUIRE(before.size() < kRuns);
  std::map<std::string, std::pair<std::string, fs::file_time_type>> files;
  for (const auto& [key, record] : before) {
    const auto path = runs / (key + ".json");
    files[key] = {read_text(path), fs::last_write_time(path)};
  }
  REQUIRE(run_capaboost({"reindex", "--results", results.string()}, dir.path() / "reindex.log") == 0);
  CHECK_THAT(read_text(dir.path() / "reindex.log"),
             Catch::Contains("indexed " + std::to_string(before.size()) + " run records"));
  CHECK(indexed_rows(results / "index.sqlite") == before.size());

  // The rerun does only what is missing and leaves the finished records untouched.
  const int rerun = run_capaboost({"run", spec.string(), "--profile", "paper", "--results", results.string()},
                              dir.path() / "rerun.log");
  INFO(read_text(dir.path() / "rerun.log"));
  REQUIRE(rerun == 0);
  CHECK_THAT(read_text(dir.path() / "rerun.log"),
             Catch::Contains(std::to_string(kRuns - before.size()) + " run, 0 failed, " +
                             std::to_string(before.size()) + " already recorded"));
  const auto after = records(results);
  CHECK(after.size() == kRuns);
  for (const auto& [key, file] : files) {
    INFO(key);
    const auto path = runs / (key + ".json");
    CHECK(read_text(path) == file.first);
    CHECK(fs::last_write_time(path) == file.second);
  }
  for (const auto& entry : fs::directory_iterator(runs)) {
    CHECK(entry.path().extension() == ".json");  // the killed writer's temp file is gone
  }
  CHECK(indexed_rows(results / "index.sqlite") == static_cast<size_t>(kRuns));
  CHECK(run_capaboost({"status", spec.string(), "--profile", "paper", "--results", results.string()},
                  dir.path() / "status.log") == 0);
  CHECK_THAT(read_text(dir.path() / "status.log"),
             Catch::Contains("recorded on: cpu with LibTorch " + std::string(TORCH_VERSION) + " (" +
                             std::to_string(kRuns) + ")"));
}

TEST_CASE("records of older code load, are counted by status and are never reused", "[harness][process]") {
  TempDir dir;
  const auto spec = write_theorem1_spec(dir.path(), 8, 2, 1, "[42]");
  const auto results = dir.path() / "results";
  fs::create_directories(results / "runs");
  // A schema-1 record of this spec, as code version 1 wrote it (parameters without defaults).
  std::ofstream(results / "runs" / "0123abcd.json")
      << R"json({"key": "0123abcd", "spec": "theorem1_sweep", "profile": "paper", "status": "ok", "label": "rank(X+Y)",
             "parameters": {"dim": 8, "trials": 2, "rank": 1, "seed": 42}, "code_version": "capaboost-bench/1",
             "metrics": {"rank_mean": 2.0}})json";
  CHECK(run_capaboost({"status", spec.string(), "--profile", "paper", "--results", results.string()},
                      dir.path() / "status.log") == 4);  // the current run is missing
  CHECK_THAT(read_text(dir.path() / "status.log"),
             Catch::Contains("0 ok, 0 failed, 1 missing") &&
                 Catch::Contains("1 record(s) of this spec and profile from capaboost-bench/1 have keys no current run has"));
  REQUIRE(run_capaboost({"run", spec.string(), "--profile", "paper", "--results", results.string()},
                        dir.path() / "run.log") == 0);
  CHECK_THAT(read_text(dir.path() / "run.log"), Catch::Contains("1 run, 0 failed, 0 already recorded"));
  CHECK(indexed_rows(results / "index.sqlite") == 2);  // both records are indexed
}

TEST_CASE("a missing prerequisite stops the sweep at once and records nothing", "[harness][process]") {
  // Fine-tuning runs pointed at an empty data root: the task's files are a prerequisite of the machine,
  // not a property of the method, so no run may be recorded as failed.
  TempDir dir;
  const fs::path spec = dir.path() / "missing_data.yaml";
  std::ofstream(spec) << "name: missing_data\n"
                         "measure: finetune\n"
                         "defaults: {model: tiny-random, method: lora, task: RTE, epochs: 1, train_limit: 8}\n"
                         "rows:\n  - {label: LoRA}\n"
                         "seeds: [1, 2, 3]\n";
  fs::create_directories(dir.path() / "empty-data");
  for (const char* jobs : {"1", "2"}) {
    INFO("--jobs " << jobs);
    const fs::path log = dir.path() / (std::string("log-") + jobs);
    const int status = run_capaboost({"run", spec.string(), "--profile", "paper", "--results", (dir.path() / "results").string(),
                                      "--data-root", (dir.path() / "empty-data").string(), "--jobs", jobs},
                                     log);
    INFO(read_text(log));
    CHECK(status == 5);
    CHECK(read_text(log).find("set-up") != std::string::npos);
    CHECK(read_text(log).find("RTE") != std::string::npos);
    CHECK(count_records(dir.path() / "results" / "runs") == 0);
  }
}


TEST_CASE("two sweeps on one results directory at once run every run exactly once", "[harness][process][claims]") {
  TempDir dir;
  constexpr int kRuns = 60;
  const auto spec = write_theorem1_spec(dir.path(), 24, 4, kRuns / 2, "[42, 43]").string();
  const auto results = (dir.path() / "results").string();
  const auto log_a = dir.path() / "a.log", log_b = dir.path() / "b.log";
  const pid_t a = start_group({"run", spec, "--profile", "paper", "--results", results, "--jobs", "2"}, log_a);
  const pid_t b = start_group({"run", spec, "--profile", "paper", "--results", results, "--jobs", "2"}, log_b);
  int status_a = 0, status_b = 0;
  waitpid(a, &status_a, 0);
  waitpid(b, &status_b, 0);
  const std::string text_a = read_text(log_a), text_b = read_text(log_b);
  INFO(text_a << "\n---\n" << text_b);
  REQUIRE(WIFEXITED(status_a));
  REQUIRE(WIFEXITED(status_b));
  CHECK(WEXITSTATUS(status_a) == 0);
  CHECK(WEXITSTATUS(status_b) == 0);
  // Every run finished once, in one of the two sweeps: never twice to completion.
  const size_t done_a = count_occurrences(text_a, "ok in "), done_b = count_occurrences(text_b, "ok in ");
  CHECK(done_a + done_b == kRuns);
  // Each parent's summary counts its own workers' runs: the runs of the other sweep are "finished by
  // another process" (they once counted twice, as both parents' "run").
  const auto summary_count = [](const std::string& text, const std::string& what) {
    const std::smatch found = [&] {
      std::smatch match;
      std::regex_search(text, match, std::regex("(\\d+) " + what + "[ ,(]"));
      return match;
    }();
    return found.empty() ? -1 : std::stoi(found[1]);
  };
  CHECK(summary_count(text_a, "run") == static_cast<int>(done_a));
  CHECK(summary_count(text_b, "run") == static_cast<int>(done_b));
  CHECK(summary_count(text_a, "run") + summary_count(text_b, "run") == kRuns);
  CHECK(records(results).size() == kRuns);
  for (const auto& [key, record] : records(results)) CHECK(record.at("status") == "ok");
  CHECK(indexed_rows(fs::path(results) / "index.sqlite") == static_cast<size_t>(kRuns));
  CHECK(fs::is_empty(fs::path(results) / "claims"));
}

TEST_CASE("twenty SIGKILLs of a parallel sweep at random moments lose no finished run and redo none",
          "[harness][process][claims]") {
  TempDir dir;
  constexpr int kRuns = 800;
  constexpr int kKills = 20;
  // Runs of ~20 ms each. Half the kills come at any moment of the first second (start-up, planning,
  // forking workers, first claims); the other half a random 0-250 ms after the sweep's first new record,
  // while runs start, run and write their records, however long start-up takes on the machine.
  const auto spec = write_theorem1_spec(dir.path(), 160, 16, kRuns / 2, "[42, 43]").string();
  const auto results = dir.path() / "results";
  const auto runs = results / "runs";
  const auto log = dir.path() / "killed.log";
  std::mt19937 random(2024);
  std::uniform_int_distribution<int> early_ms(0, 1000), after_progress_ms(0, 250);
  // Each record as first seen: it must never change afterwards (not rewritten, not redone).
  std::map<std::string, std::pair<std::string, fs::file_time_type>> first_seen;
  for (int kill = 0; kill < kKills; ++kill) {
    const size_t recorded = fs::exists(runs) ? count_records(runs) : 0;
    const pid_t sweep = start_group({"run", spec, "--profile", "paper", "--results", results.string(), "--jobs", "2"}, log);
    if (kill % 2 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(early_ms(random)));
    } else {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (count_records(runs) == recorded && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(after_progress_ms(random)));
    }
    kill_group(sweep);
    if (!fs::exists(runs)) continue;  // killed before it made its results folder
    for (const auto& [key, record] : records(results)) {  // every record left behind parses
      const auto path = runs / (key + ".json");
      const auto seen = first_seen.emplace(key, std::make_pair(read_text(path), fs::last_write_time(path)));
      if (!seen.second) {
        INFO(key << " after kill " << kill + 1);
        CHECK(read_text(path) == seen.first->second.first);
        CHECK(fs::last_write_time(path) == seen.first->second.second);
      }
    }
  }
  WARN(first_seen.size() << " runs finished across " << kKills << " killed sweeps");
  REQUIRE(first_seen.size() < static_cast<size_t>(kRuns));  // otherwise the kills came too late: make it bigger
  REQUIRE(first_seen.size() >= static_cast<size_t>(kKills / 2));  // every other sweep was killed mid-run
  const int status = run_capaboost({"run", spec, "--profile", "paper", "--results", results.string(), "--jobs", "2"},
                                   dir.path() / "final.log");
  INFO(read_text(dir.path() / "final.log"));
  REQUIRE(status == 0);
  CHECK_THAT(read_text(dir.path() / "final.log"),
             Catch::Contains(std::to_string(kRuns - first_seen.size()) + " run, 0 failed, " +
                             std::to_string(first_seen.size()) + " already recorded"));
  const auto after = records(results);
  CHECK(after.size() == kRuns);
  for (const auto& [key, file] : first_seen) {
    INFO(key);
    CHECK(read_text(runs / (key + ".json")) == file.first);
    CHECK(fs::last_write_time(runs / (key + ".json")) == file.second);
  }
  for (const auto& entry : fs::directory_iterator(runs)) CHECK(entry.path().extension() == ".json");
  CHECK(fs::is_empty(results / "claims"));  // the killed workers' claims were taken over and released
  REQUIRE(run_capaboost({"reindex", "--results", results.string()}, dir.path() / "reindex.log") == 0);
  CHECK(indexed_rows(results / "index.sqlite") == static_cast<size_t>(kRuns));
}

TEST_CASE("a sweep's parent stopped with SIGTERM takes its workers with it; the rerun completes the sweep",
          "[harness][process][claims]") {
  TempDir dir;
  // 400 runs of ~20 ms: both workers are mid-sweep when the first record appears.
  const auto spec = write_theorem1_spec(dir.path(), 160, 16, 200, "[42, 43]").string();
  const auto results = dir.path() / "results";
  const auto log = dir.path() / "stopped.log";
  const pid_t sweep = start_group({"run", spec, "--profile", "paper", "--results", results.string(), "--jobs", "2"}, log);
  const auto started = std::chrono::steady_clock::now();
  while (count_records(results / "runs") == 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(sweep, SIGTERM);  // the parent alone, as timeout(1) or a scheduler's cancel sends it
  int status = 0;
  waitpid(sweep, &status, 0);
  // The workers share the parent's process group: it empties once they have stopped too.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::kill(-sweep, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool workers_left = ::kill(-sweep, 0) == 0;
  if (workers_left) kill_group(sweep);
  INFO(read_text(log));
  CHECK_FALSE(workers_left);
  const size_t recorded = count_records(results / "runs");
  REQUIRE(recorded < 400);  // otherwise the sweep ended before the signal: make it bigger
  REQUIRE(run_capaboost({"run", spec, "--profile", "paper", "--results", results.string(), "--jobs", "2"},
                        dir.path() / "rerun.log") == 0);
  CHECK_THAT(read_text(dir.path() / "rerun.log"),
             Catch::Contains(std::to_string(400 - recorded) + " run, 0 failed, " + std::to_string(recorded) +
                             " already recorded"));
}

TEST_CASE("a full disk stops the sweep with the fix, keeps every record whole, and the rerun completes it",
          "[harness][process][disk]") {
  TempDir dir;
  const auto results = dir.path() / "results";
  fs::create_directories(results);
  // A real full disk: a small tmpfs as the results folder (needs root and a container that allows mounts).
  if (std::system(("mount -t tmpfs -o size=64k capaboost-test '" + results.string() + "' 2>/dev/null").c_str()) != 0) {
    WARN("skipped: cannot mount a small tmpfs here (needs root, and mounts allowed)");
    return;
  }
  struct Unmount {
    fs::path at;
    ~Unmount() { std::system(("umount -l '" + at.string() + "'").c_str()); }
  } unmount{results};
  constexpr int kRuns = 40;
  const auto spec = write_theorem1_spec(dir.path(), 16, 2, kRuns / 2, "[42, 43]").string();
  const int full = run_capaboost({"run", spec, "--profile", "paper", "--results", results.string()},
                                 dir.path() / "full.log");
  const std::string log = read_text(dir.path() / "full.log");
  INFO(log);
  CHECK(full != 0);
  CHECK_THAT(log, Catch::Contains("No space left on device") || Catch::Contains("database or disk is full"));
  CHECK_THAT(log, Catch::Contains("free space"));
  const auto kept = records(results);  // every record on the full disk parses
  CHECK(kept.size() < static_cast<size_t>(kRuns));
  for (const auto& entry : fs::directory_iterator(results / "runs")) CHECK(entry.path().extension() == ".json");

  // Space again, the same command: exactly the rest runs, the records written before stay as they were.
  REQUIRE(std::system(("mount -o remount,size=8m '" + results.string() + "'").c_str()) == 0);
  const int rerun = run_capaboost({"run", spec, "--profile", "paper", "--results", results.string()},
                                  dir.path() / "rerun.log");
  INFO(read_text(dir.path() / "rerun.log"));
  REQUIRE(rerun == 0);
  CHECK_THAT(read_text(dir.path() / "rerun.log"),
             Catch::Contains(std::to_string(kRuns - kept.size()) + " run, 0 failed, " + std::to_string(kept.size()) +
                             " already recorded"));
  const auto after = records(results);
  CHECK(after.size() == static_cast<size_t>(kRuns));
  for (const auto& [key, record] : kept) CHECK(after.at(key) == record);
  REQUIRE(run_capaboost({"reindex", "--results", results.string()}, dir.path() / "reindex.log") == 0);
  CHECK(indexed_rows(results / "index.sqlite") == static_cast<size_t>(kRuns));
}
