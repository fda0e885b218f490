#include "store/store_check.h"

#include "store/record_digest.h"
#include "store/run_scalars.h"
#include "util/atomic_file.h"
#include "util/path_name.h"
#include "util/sha256.h"

#include <fmt/format.h>
#include <signal.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// How to get a record's run back: its spec and profile, when the damaged file still says them.
std::string rerun_hint(const std::string& record_path, const std::string& key) {
  std::ifstream in(record_path);
  std::string spec, profile;
  try {
    const auto json = nlohmann::json::parse(in);
    spec = json.value("spec", "");
    profile = json.value("profile", "");
  } catch (const std::exception&) {
    // Unreadable: the key is all there is to go by.
  }
  if (spec.empty() || path_name_problem(spec) || path_name_problem(profile)) {
    return fmt::format("`capaboost run SPEC --profile P` reruns run {} (the spec whose `capaboost plan` lists it)",
                       key.substr(0, 12));
  }
  return fmt::format("`capaboost run experiments/{}.yaml --profile {}` reruns run {}", spec, profile, key.substr(0, 12));
}

// A file left by atomic_file.h's writer: <name>.tmp.<pid>.<n>; its writer's pid, or 0.
long temporary_writer(const std::string& name) {
  const auto marker = name.find(".tmp.");
  return marker == std::string::npos ? -1 : std::atol(name.c_str() + marker + 5);
}

StoreFinding finding(std::string path, std::string problem, std::string rerun = "", bool movable = true) {
  StoreFinding found;
  found.path = std::move(path);
  found.problem = std::move(problem);
  found.rerun = std::move(rerun);
  found.movable = movable;
  return found;
}

const std::string kScalarsSuffix = ".scalars.csv";

// A run's curves (store/run_scalars.h) against the digest its record names; an orphan is a finding.
void check_scalars_file(const RecordStore& store, const RunClaims& claims, StoreCheck& check,
                        const std::map<std::string, RunRecord>& usable, const std::string& name, const std::string& key);

bool live_here(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

// Whether a live process holds `key`'s claim: its run is being written now.
bool in_progress(const RunClaims& claims, const std::string& key) {
  return claims.holder(key).has_value() && !claims.is_stale(claims.claim_path(key));
}

void check_scalars_file(const RecordStore& store, const RunClaims& claims, StoreCheck& check,
                        const std::map<std::string, RunRecord>& usable, const std::string& name, const std::string& key) {
  ++check.scalars_files;
  const auto record = usable.find(key);
  if (record == usable.end() || !has_run_scalars(record->second)) {
    if (record == usable.end() && !path_name_problem(key) && in_progress(claims, key)) return;
    check.findings.push_back(finding("runs/" + name, "a scalars file no usable record names (an orphan)", ""));
    return;
  }
  const std::string expected = record->second.details["scalars"]["sha256"].get<std::string>();
  const std::string actual = sha256_file_hex(store.scalars_path(key));
  if (actual != expected) {
    check.findings.push_back(finding("runs/" + name,
                                     fmt::format("its SHA-256 {} is not the {} its record names: the curves changed "
                                                 "after the run",
                                                 actual.substr(0, 12), expected.substr(0, 12)),
                                     fmt::format("its record's numbers stand; to draw its curves again, move runs/{}.json "
                                                 "aside too, then {}",
                                                 key, rerun_hint(store.record_path(key), key))));
  }
}

void check_records(const RecordStore& store, const RunClaims& claims, StoreCheck& check,
                   std::map<std::string, RunRecord>& usable) {
  for (auto& stored : store.inspect_all()) {
    ++check.records;
    if (!stored.problem.empty()) {
      check.findings.push_back(finding("runs/" + stored.key + ".json", stored.problem, rerun_hint(stored.path, stored.key)));
      continue;
    }
    (stored.unsealed ? check.unsealed : check.sealed) += 1;
    usable.emplace(stored.key, std::move(*stored.record));
  }
  const fs::path runs = fs::path(store.results_dir()) / "runs";
  std::set<std::string> states;
  for (const auto& entry : fs::directory_iterator(runs)) {
    const std::string name = entry.path().filename().string();
    const long writer = temporary_writer(name);
    if (writer >= 0) {
      if (!live_here(writer)) {
        check.findings.push_back(finding("runs/" + name, "a temporary file whose writer is gone (a killed process)", ""));
      }
      continue;
    }
    if (name.size() > kScalarsSuffix.size() && name.compare(name.size() - kScalarsSuffix.size(), std::string::npos, kScalarsSuffix) == 0) {
      check_scalars_file(store, claims, check, usable, name, name.substr(0, name.size() - kScalarsSuffix.size()));
      continue;
    }
    if (entry.path().extension() != ".safetensors") continue;
    const std::string key = entry.path().stem().string();
    ++check.tuned_states;
    states.insert(key);
    const auto record = usable.find(key);
    if (record == usable.end()) {
      if (path_name_problem(key) || !in_progress(claims, key)) {
        const bool damaged = fs::exists(runs / (key + ".json"));
        check.findings.push_back(finding("runs/" + name,
                                  damaged ? "the tuned state of a record that fails its checks"
                                          : "a tuned state no record names (an orphan)",
                                  ""));
      }
      continue;
    }
    const std::string& expected = record->second.tuned_state_sha256;
    if (!expected.empty()) {
      const std::string actual = sha256_file_hex(entry.path().string());
      if (actual != expected) {
        check.findings.push_back(finding(
            "runs/" + name,
             fmt::format("its SHA-256 {} is not the {} its record names: the weights changed after the run",
                         actual.substr(0, 12), expected.substr(0, 12)),
             fmt::format("its record's numbers stand; to export the run, move runs/{}.json aside too, then {}", key,
                         rerun_hint(store.record_path(key), key))));
      }
    }
  }
  for (const auto& [key, record] : usable) {
    if (!record.tuned_state_sha256.empty() && !states.count(key)) {
      check.findings.push_back(finding("runs/" + key + ".safetensors", "its record names a tuned state that is not there",
                                       fmt::format("its record's numbers stand; to export the run, move runs/{}.json "
                                                   "aside, then {}",
                                                   key, rerun_hint(store.record_path(key), key)),
                                       false));
    }
  }
}

void check_index(const RecordStore& store, StoreCheck& check, const std::map<std::string, RunRecord>& usable) {
  const auto rows = store.indexed_statuses();
  if (!rows) {
    check.index_stale = true;
    const bool exists = fs::exists(store.index_path());
    if (exists || !usable.empty()) {
      check.findings.push_back(finding("index.sqlite", exists ? "the index cannot be read" : "there is no index of the records",
                                "", exists));
    }
    return;
  }
  check.index_rows = rows->size();
  size_t unknown = 0, unindexed = 0, differing = 0;
  for (const auto& [key, status] : *rows) {
    const auto record = usable.find(key);
    if (record == usable.end()) {
      ++unknown;
    } else if (to_string(record->second.status) != status) {
      ++differing;
    }
  }
  for (const auto& [key, record] : usable) unindexed += rows->count(key) ? 0 : 1;
  if (unknown + unindexed + differing == 0) return;
  check.index_stale = true;
  check.findings.push_back(finding(
      "index.sqlite",
       fmt::format("the index disagrees with the records: {} row(s) without a usable record, {} record(s) not "
                   "indexed, {} with another status",
                   unknown, unindexed, differing)));
}

void check_claims(const RunClaims& claims, StoreCheck& check) {
  if (!fs::is_directory(claims.directory())) return;
  for (const auto& entry : fs::directory_iterator(claims.directory())) {
    if (entry.path().extension() != ".claim" || !claims.is_stale(entry.path().string())) continue;
    check.findings.push_back(finding("claims/" + entry.path().filename().string(),
                              "a stale claim (its holder died or stopped renewing it)", ""));
  }
}

// quarantine/<UTC time>, made new: a second repair within the second gets "-2".
fs::path new_quarantine_folder(const RecordStore& store) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  fs::create_directories(store.quarantine_dir());
  for (int attempt = 1;; ++attempt) {
    const fs::path folder = fs::path(store.quarantine_dir()) / (attempt == 1 ? stamp : fmt::format("{}-{}", stamp, attempt));
    if (fs::create_directory(folder)) return folder;
  }
}

}  // namespace

StoreCheck check_store(const RecordStore& store, const RunClaims& claims) {
  StoreCheck check;
  std::map<std::string, RunRecord> usable;
  check_records(store, claims, check, usable);
  check_index(store, check, usable);
  check_claims(claims, check);
  return check;
}

void quarantine(RecordStore& store, StoreCheck& check) {
  if (check.clean()) return;
  const fs::path results(store.results_dir());
  const fs::path folder = new_quarantine_folder(store);
  check.quarantine = fs::relative(folder, results).string();
  std::string log = fmt::format("capaboost fsck --repair, {}: moved here from {}\n\n", check.quarantine, results.string());
  bool records_moved = false;
  for (auto& finding : check.findings) {
    if (!finding.movable || !fs::exists(results / finding.path)) continue;
    const fs::path target = folder / finding.path;
    fs::create_directories(target.parent_path());
    std::error_code error;
    // A rename within one file system: the file is never copied half-way, and never gone.
    fs::rename(results / finding.path, target, error);
    if (error) {
      write_file_atomically((folder / "fsck.txt").string(), log);
      throw std::runtime_error(fmt::format("{}: cannot move it to {}: {}; what moved before is listed in {}",
                                           (results / finding.path).string(), target.string(), error.message(),
                                           (folder / "fsck.txt").string()));
    }
    finding.moved_to = fs::relative(target, results).string();
    records_moved = records_moved || finding.path.rfind("runs/", 0) == 0;
    log += fmt::format("{}: {}{}\n", finding.path, finding.problem, finding.rerun.empty() ? "" : "; " + finding.rerun);
  }
  if (records_moved || check.index_stale) {
    check.reindexed = store.reindex();
    log += fmt::format("\nthe index was rebuilt from the {} records left\n", check.reindexed);
  }
  write_file_atomically((folder / "fsck.txt").string(), log);
}

}  // namespace capaboost::harness
