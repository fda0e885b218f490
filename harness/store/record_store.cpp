#include "store/record_store.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  key TEXT PRIMARY KEY,
  spec TEXT, label TEXT, name TEXT, measure TEXT, profile TEXT, status TEXT, reason TEXT,
  parameters TEXT, metrics TEXT, wall_time_s REAL, finished_at TEXT, path TEXT);
CREATE INDEX IF NOT EXISTS runs_by_spec ON runs(spec, profile);
)sql";

struct Database {
  sqlite3* handle = nullptr;
  explicit Database(const std::string& path) {
    if (sqlite3_open(path.c_str(), &handle) != SQLITE_OK) {
      const std::string message = handle ? sqlite3_errmsg(handle) : "out of memory";
      sqlite3_close(handle);
      throw std::runtime_error(fmt::format("{}: cannot open the results index: {}; delete it and run "
                                           "`capaboost reindex`", path, message));
    }
    sqlite3_busy_timeout(handle, 10000);  // parallel workers write the same index
    exec("PRAGMA journal_mode=WAL;");
    exec(kSchema);
  }
  ~Database() { sqlite3_close(handle); }
  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : "unknown";
      sqlite3_free(error);
      throw std::runtime_error("results index: " + message);
    }
  }
};

void upsert(Database& db, const nlohmann::json& record, const std::string& path) {
  sqlite3_stmt* statement = nullptr;
  const char* sql =
      "INSERT OR REPLACE INTO runs (key, spec, label, name, measure, profile, status, reason, parameters, metrics, "
      "wall_time_s, finished_at, path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db.handle, sql, -1, &statement, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("results index: ") + sqlite3_errmsg(db.handle));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(statement, sqlite3_finalize);
  auto text = [&](int column, const std::string& value) {
    sqlite3_bind_text(statement, column, value.c_str(), -1, SQLITE_TRANSIENT);
  };
  auto field = [&](const char* name) { return record.contains(name) && record[name].is_string() ? record[name].get<std::string>() : ""; };
  text(1, field("key"));
  text(2, field("spec"));
  text(3, field("label"));
  text(4, field("name"));
  text(5, field("measure"));
  text(6, field("profile"));
  text(7, field("status"));
  text(8, field("reason"));
  text(9, record.value("parameters", nlohmann::json::object()).dump());
  text(10, record.value("metrics", nlohmann::json::object()).dump());
  sqlite3_bind_double(statement, 11, record.value("wall_time_s", 0.0));
  text(12, field("finished_at"));
  text(13, path);
  if (sqlite3_step(statement) != SQLITE_DONE) {
    throw std::runtime_error(std::string("results index: ") + sqlite3_errmsg(db.handle));
  }
}

}  // namespace

RecordStore::RecordStore(std::string results_dir) : results_dir_(std::move(results_dir)) {
  fs::create_directories(fs::path(results_dir_) / "runs");
}

std::string RecordStore::record_path(const std::string& key) const {
  return (fs::path(results_dir_) / "runs" / (key + ".json")).string();
}

std::string RecordStore::index_path() const { return (fs::path(results_dir_) / "index.sqlite").string(); }

void RecordStore::write(const nlohmann::json& record) {
  const std::string key = record.at("key").get<std::string>();
  const std::string path = record_path(key);
  const std::string temporary = fmt::format("{}.tmp.{}", path, getpid());
  const std::string text = record.dump(1) + "\n";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot write run record: {}", temporary, std::strerror(errno)));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error(fmt::format("{}: cannot write run record (disk full?)", path));
  }
  index(record);
}

void RecordStore::index(const nlohmann::json& record) {
  Database db(index_path());
  upsert(db, record, record_path(record.at("key").get<std::string>()));
}

std::optional<nlohmann::json> RecordStore::read(const std::string& key) const {
  const std::string path = record_path(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: corrupt run record ({}); delete it to rerun that run", path, e.what()));
  }
}

bool RecordStore::has_ok(const std::string& key) const {
  const auto record = read(key);
  return record && record->value("status", "") == "ok";
}

std::vector<nlohmann::json> RecordStore::all() const {
  std::vector<nlohmann::json> records;
  for (const auto& entry : fs::directory_iterator(fs::path(results_dir_) / "runs")) {
    if (entry.path().extension() != ".json") continue;
    if (auto record = read(entry.path().stem().string())) records.push_back(std::move(*record));
  }
  return records;
}

size_t RecordStore::reindex() {
  std::remove(index_path().c_str());
  std::remove((index_path() + "-wal").c_str());
  std::remove((index_path() + "-shm").c_str());
  Database db(index_path());
  db.exec("BEGIN;");
  size_t count = 0;
  for (const auto& record : all()) {
    upsert(db, record, record_path(record.at("key").get<std::string>()));
    ++count;
  }
  db.exec("COMMIT;");
  return count;
}

size_t RecordStore::remove_stale_temporaries() {
  size_t removed = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(results_dir_) / "runs")) {
    const auto name = entry.path().filename().string();
    const auto marker = name.find(".json.tmp.");
    if (marker == std::string::npos) continue;
    const int pid = std::atoi(name.c_str() + marker + 10);
    // A temp file of a live process is a write in progress (a parallel worker), not debris.
    if (pid > 0 && ::kill(pid, 0) == 0) continue;
    fs::remove(entry.path());
    ++removed;
  }
  return removed;
}

}  // namespace capaboost::harness
