#include "store/record_store.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include "store/record_digest.h"
#include "util/atomic_file.h"
#include "util/path_name.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// The index's own schema version (PRAGMA user_version): an index of another version is dropped and
// rebuilt from the JSON records, which are the truth.
constexpr int kIndexVersion = 2;
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  key TEXT PRIMARY KEY,
  spec TEXT, label TEXT, name TEXT, measure TEXT, profile TEXT, status TEXT, reason TEXT,
  config TEXT, metrics TEXT, wall_time_s REAL, finished_at TEXT, path TEXT, schema_version INTEGER);
CREATE INDEX IF NOT EXISTS runs_by_spec ON runs(spec, profile);
)sql";

// An index error as a message; a full disk gets the fix (the records, written first, are intact).
std::string index_failure(int code, const std::string& message) {
  std::string text = "results index: " + message;
  if ((code & 0xff) == SQLITE_FULL) {
    text += " (the disk is full: free space, then run `capaboost reindex`; the JSON run records are intact)";
  }
  return text;
}

struct Database {
  sqlite3* handle = nullptr;
  bool created = false;  ///< the table was (re)created: it holds no records yet
  explicit Database(const std::string& path) {
    if (sqlite3_open(path.c_str(), &handle) != SQLITE_OK) {
      const std::string message = handle ? sqlite3_errmsg(handle) : "out of memory";
      sqlite3_close(handle);
      throw std::runtime_error(fmt::format("{}: cannot open the results index: {}; delete it and run "
                                           "`capaboost reindex`", path, message));
    }
    sqlite3_busy_timeout(handle, 10000);  // two sweeps on one results directory may index at once
    // A rollback journal: WAL needs shared memory between processes, which NFS and Lustre (where
    // cluster results live) do not give; one process per sweep writes the index anyway.
    exec("PRAGMA journal_mode=DELETE;");
    // One writer at a time decides whether the table is current, so two workers never both rebuild it.
    exec("BEGIN IMMEDIATE;");
    if (user_version() != kIndexVersion) {
      exec("DROP TABLE IF EXISTS runs;");
      exec(kSchema);
      exec(fmt::format("PRAGMA user_version = {};", kIndexVersion));
      created = true;
    }
    exec("COMMIT;");
  }
  ~Database() { sqlite3_close(handle); }
  void exec(const std::string& sql) {
    char* error = nullptr;
    const int code = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error);
    if (code != SQLITE_OK) {
      std::string message = error ? error : "unknown";
      sqlite3_free(error);
      throw std::runtime_error(index_failure(code, message));
    }
  }
  int user_version() {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, "PRAGMA user_version;", -1, &statement, nullptr) != SQLITE_OK) return -1;
    const int version = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : -1;
    sqlite3_finalize(statement);
    return version;
  }
};

void upsert(Database& db, const RunRecord& record, const std::string& path) {
  sqlite3_stmt* statement = nullptr;
  const char* sql =
      "INSERT OR REPLACE INTO runs (key, spec, label, name, measure, profile, status, reason, config, metrics, "
      "wall_time_s, finished_at, path, schema_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (const int code = sqlite3_prepare_v2(db.handle, sql, -1, &statement, nullptr); code != SQLITE_OK) {
    throw std::runtime_error(index_failure(code, sqlite3_errmsg(db.handle)));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(statement, sqlite3_finalize);
  auto text = [&](int column, const std::string& value) {
    sqlite3_bind_text(statement, column, value.c_str(), -1, SQLITE_TRANSIENT);
  };
  text(1, record.key);
  text(2, record.spec);
  text(3, record.label);
  text(4, record.name);
  text(5, record.measure);
  text(6, record.profile);
  text(7, to_string(record.status));
  text(8, record.reason);
  text(9, record.config.dump());
  text(10, record.metrics.dump());
  sqlite3_bind_double(statement, 11, record.wall_time_s);
  text(12, record.finished_at);
  text(13, path);
  sqlite3_bind_int(statement, 14, record.schema_version);
  if (const int code = sqlite3_step(statement); code != SQLITE_DONE) {
    throw std::runtime_error(index_failure(code, sqlite3_errmsg(db.handle)));
  }
}

}  // namespace

RecordStore::RecordStore(std::string results_dir) : results_dir_(std::move(results_dir)) {
  std::error_code error;
  fs::create_directories(fs::path(results_dir_) / "runs", error);
  if (error) {
    throw std::runtime_error(fmt::format("{}: cannot create the results folder's runs/: {}; give --results a "
                                         "writable directory", results_dir_, error.message()));
  }
}

std::string RecordStore::record_path(const std::string& key) const {
  check_path_name(key, "run key");
  return (fs::path(results_dir_) / "runs" / (key + ".json")).string();
}

std::string RecordStore::tuned_state_path(const std::string& key) const {
  check_path_name(key, "run key");
  return (fs::path(results_dir_) / "runs" / (key + ".safetensors")).string();
}

std::string RecordStore::scalars_path(const std::string& key) const {
  check_path_name(key, "run key");
  return (fs::path(results_dir_) / "runs" / (key + ".scalars.csv")).string();
}

std::string RecordStore::resolve_key(const std::string& prefix) const {
  if (prefix.empty()) throw std::invalid_argument("a run key (or its first characters) is needed");
  std::vector<std::string> matches;
  for (const auto& entry : fs::directory_iterator(fs::path(results_dir_) / "runs")) {
    const std::string key = entry.path().stem().string();
    if (entry.path().extension() == ".json" && key.rfind(prefix, 0) == 0) matches.push_back(key);
  }
  if (matches.empty()) {
    throw std::runtime_error(fmt::format("no run record in {}/runs has a key starting with '{}'; `capaboost plan SPEC` "
                                         "lists a spec's keys", results_dir_, prefix));
  }
  if (matches.size() > 1) {
    throw std::runtime_error(fmt::format("{} run records have keys starting with '{}'; give more characters",
                                         matches.size(), prefix));
  }
  return matches.front();
}

std::string RecordStore::index_path() const { return (fs::path(results_dir_) / "index.sqlite").string(); }

std::string RecordStore::quarantine_dir() const { return (fs::path(results_dir_) / "quarantine").string(); }

std::string RecordStore::quarantined_record(const std::string& key) const {
  std::error_code error;
  if (!fs::is_directory(quarantine_dir(), error)) return "";
  // Folders are named by UTC time (fsck.h), so the greatest name is the newest.
  std::string newest_folder, found;
  for (const auto& entry : fs::directory_iterator(quarantine_dir(), error)) {
    const fs::path candidate = entry.path() / "runs" / (key + ".json");
    if (entry.path().filename().string() > newest_folder && fs::exists(candidate, error)) {
      newest_folder = entry.path().filename().string();
      found = candidate.string();
    }
  }
  return found;
}

void RecordStore::write(const RunRecord& record) {
  if (record.key.empty()) throw std::invalid_argument("RecordStore::write: a run record needs its key");
  write_file_atomically(record_path(record.key), sealed(record.to_json()).dump(1) + "\n");
}

void RecordStore::add_to_index(const std::vector<RunRecord>& records) {
  if (records.empty()) return;
  Database db(index_path());
  if (!db.created) {
    db.exec("BEGIN;");
    for (const auto& record : records) upsert(db, record, record_path(record.key));
    db.exec("COMMIT;");
    return;
  }
  // A new index, or one of older code that was just dropped: fill it from the records on disk (these
  // included).
  db.exec("BEGIN;");
  for (const auto& stored : all()) upsert(db, stored, record_path(stored.key));
  db.exec("COMMIT;");
}

StoredRecord RecordStore::inspect(const std::string& key) const {
  StoredRecord stored;
  stored.key = key;
  stored.path = record_path(key);
  std::ifstream in(stored.path, std::ios::binary);
  if (!in) return stored;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    stored.problem = text.empty() ? "it is empty" : fmt::format("it does not parse as JSON (truncated?): {}", e.what());
    return stored;
  }
  if (const auto problem = seal_problem(json)) {
    stored.problem = *problem;
    return stored;
  }
  try {
    stored.record = RunRecord::from_json(json, stored.path);
  } catch (const std::exception& e) {
    stored.problem = e.what();
    return stored;
  }
  if (stored.record->key != key) {
    stored.problem = fmt::format("it holds the record of run {}, not of {} (its file name)", stored.record->key, key);
    stored.record.reset();
    return stored;
  }
  stored.unsealed = is_unsealed(json);
  return stored;
}

std::vector<StoredRecord> RecordStore::inspect_all() const {
  std::vector<std::string> keys;
  for (const auto& entry : fs::directory_iterator(fs::path(results_dir_) / "runs")) {
    const std::string key = entry.path().stem().string();
    // A file whose name could not be a key (a stray copy, "x.json.bak") is not a record of this store.
    if (entry.path().extension() == ".json" && entry.is_regular_file() && !path_name_problem(key)) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<StoredRecord> found;
  for (const auto& key : keys) found.push_back(inspect(key));
  return found;
}

std::optional<RunRecord> RecordStore::read(const std::string& key) const {
  StoredRecord stored = inspect(key);
  if (!stored.problem.empty()) {
    throw std::runtime_error(fmt::format("{}: this run record cannot be used: {}. `capaboost fsck --repair --results "
                                         "{}` moves it to quarantine/ (nothing is deleted); the next `capaboost run` "
                                         "reruns that run",
                                         stored.path, stored.problem, results_dir_));
  }
  return std::move(stored.record);
}

bool RecordStore::has_ok(const std::string& key) const {
  const auto record = read(key);
  return record && record->ok();
}

std::vector<RunRecord> RecordStore::all() const {
  std::vector<RunRecord> records;
  for (auto& stored : inspect_all()) {
    if (stored.record) records.push_back(std::move(*stored.record));
  }
  return records;
}

std::optional<std::map<std::string, std::string>> RecordStore::indexed_statuses() const {
  if (!fs::exists(index_path())) return std::nullopt;
  sqlite3* handle = nullptr;
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> guard(nullptr, sqlite3_close);
  const int opened = sqlite3_open_v2(index_path().c_str(), &handle, SQLITE_OPEN_READONLY, nullptr);
  guard.reset(handle);
  if (opened != SQLITE_OK) return std::nullopt;
  sqlite3_busy_timeout(handle, 10000);
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(handle, "SELECT key, status FROM runs", -1, &statement, nullptr) != SQLITE_OK) return std::nullopt;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(statement, sqlite3_finalize);
  std::map<std::string, std::string> rows;
  int code = SQLITE_ROW;
  while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
    const auto text = [&](int column) {
      const auto* value = sqlite3_column_text(statement, column);
      return value ? std::string(reinterpret_cast<const char*>(value)) : std::string();
    };
    rows[text(0)] = text(1);
  }
  if (code != SQLITE_DONE) return std::nullopt;
  return rows;
}

size_t RecordStore::reindex() {
  std::remove(index_path().c_str());
  std::remove((index_path() + "-wal").c_str());
  std::remove((index_path() + "-shm").c_str());
  Database db(index_path());
  db.exec("BEGIN;");
  size_t count = 0;
  for (const auto& record : all()) {
    upsert(db, record, record_path(record.key));
    ++count;
  }
  db.exec("COMMIT;");
  return count;
}

size_t RecordStore::remove_stale_temporaries() {
  size_t removed = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(results_dir_) / "runs")) {
    const auto name = entry.path().filename().string();
    // <key>.json.tmp.<pid>.<n>, <key>.safetensors.tmp.<pid>.<n>, <key>.scalars.csv.tmp.<pid>.<n> (util/atomic_file.h)
    const auto marker = name.find(".tmp.");
    if (marker == std::string::npos) continue;
    const int pid = std::atoi(name.c_str() + marker + 5);
    // A temp file of a live process is a write in progress (a parallel worker), not debris.
    if (pid > 0 && ::kill(pid, 0) == 0) continue;
    fs::remove(entry.path());
    ++removed;
  }
  return removed;
}

}  // namespace capaboost::harness
