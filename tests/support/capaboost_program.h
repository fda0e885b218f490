#pragma once
// The `capaboost` program as tests run it — as a user does, from the build tree — and what its runs
// leave in a results folder: records, metrics, index rows. Theorem 1 sweeps need no data, so they
// are the process tests' workload.

#include "support/read_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace capaboost::testing::program {

inline const std::string kBinary = CAPABOOST_BINARY;

// Runs the program with `args` (each single-quoted), output to `log`; returns the exit status.
inline int run_capaboost(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::string command = "'" + kBinary + "'";
  for (const auto& arg : args) command += " '" + arg + "'";
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The arguments of a sweep sub-command: NAME SPEC --profile PROFILE --results RESULTS, then `extra`.
inline std::vector<std::string> sweep_args(const std::string& name, const std::filesystem::path& spec,
                                           const std::string& profile, const std::filesystem::path& results,
                                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args{name, spec.string(), "--profile", profile, "--results", results.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Every record file of a results folder, parsed: key → record. A file that does not parse fails.
inline std::map<std::string, nlohmann::json> records(const std::filesystem::path& results) {
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& entry : std::filesystem::directory_iterator(results / "runs")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path().string());
    const auto record = nlohmann::json::parse(read_text(entry.path()));
    REQUIRE(record.at("key") == entry.path().stem().string());
    by_key[entry.path().stem().string()] = record;
  }
  return by_key;
}

// key → metrics of the successful runs.
inline std::map<std::string, nlohmann::json> metrics(const std::filesystem::path& results) {
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& [key, record] : records(results)) {
    CHECK(record.at("status") == "ok");
    by_key[key] = record.at("metrics");
  }
  return by_key;
}

// A Theorem 1 sweep of `ranks` × `seeds` written into `dir` (runs need no data).
inline std::filesystem::path write_theorem1_spec(const std::filesystem::path& dir, int dim, int trials, int ranks, const std::string& seeds) {
  std::string grid;
  for (int r = 1; r <= ranks; ++r) grid += (r > 1 ? ", " : "") + std::to_string(r);
  const std::filesystem::path spec = dir / "theorem1_sweep.yaml";
  std::ofstream(spec) << "name: theorem1_sweep\n"
                         "title: Theorem 1 sweep for process tests\n"
                         "measure: theorem1\n"
                         "defaults: {dim: " << dim << ", trials: " << trials << "}\n"
                         "rows:\n  - {label: rank(X+Y)}\n"
                         "grid:\n  rank: [" << grid << "]\n"
                         "seeds: " << seeds << "\n";
  return spec;
}

inline size_t indexed_rows(const std::filesystem::path& index) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(index.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs", -1, &statement, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
  const auto count = static_cast<size_t>(sqlite3_column_int64(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return count;
}

}  // namespace capaboost::testing::program
