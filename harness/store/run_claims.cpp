#include "store/run_claims.h"

#include "store/run_record.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A claim's draft is <claim>.draft.<tid>.<pid>.<host>: remove_stale can tell a dead local writer's draft.
constexpr const char* kDraftInfix = ".draft.";

// Creates `path` only if absent, with `content`, synced. Returns false when it exists. The content is
// written to a file of its own first and linked to `path` (link(2) fails with EEXIST like O_EXCL, and is
// atomic on NFS too): a claim created in place and then written was empty for a moment, and a holder
// killed in that moment left a claim nobody could judge for ten seconds, so a rerun right after a kill -9
// skipped that run as "running in another process".
bool create_exclusive(const std::string& path, const std::string& content) {
  const auto fail = [&](const char* what, int error) {
    return std::runtime_error(fmt::format("{}: cannot {} a run claim: {}; make the results directory writable "
                                          "(or free space on its disk)", path, what, std::strerror(error)));
  };
  const std::string draft = path + kDraftInfix +
                            std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." +
                            std::to_string(::getpid()) + "." + host_name();
  const int fd = ::open(draft.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw fail("create", errno);
  const bool written = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()) &&
                       ::fsync(fd) == 0;
  const int write_error = errno;
  ::close(fd);
  if (!written) {
    ::unlink(draft.c_str());
    throw fail("write", write_error);
  }
  const bool linked = ::link(draft.c_str(), path.c_str()) == 0;
  const int link_error = errno;
  // NFS may answer a link that was made with an error (its reply lost): the draft's link count decides.
  struct stat info {};
  const bool made = linked || (::stat(draft.c_str(), &info) == 0 && info.st_nlink == 2);
  ::unlink(draft.c_str());
  if (made) return true;
  if (link_error == EEXIST) return false;
  throw fail("create", link_error);
}

// Whether `pid` of `host` is a process known to have ended: only a process of this host can be checked.
bool dead_process_here(const std::string& host, long pid) {
  return host == host_name() && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Seconds since `path` was last modified, or nothing when it is gone.
std::optional<long> seconds_since_modified(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<long>(std::time(nullptr) - info.st_mtim.tv_sec);
}

// Removes the claim at `path` if it still holds `judged` (the content found stale). Of several
// processes doing this at once exactly one wins the rename; a fresh claim that slipped in between the
// judgement and the rename is put back. Returns whether the stale claim was removed.
bool remove_if_unchanged(const std::string& path, const std::string& judged) {
  const std::string aside = path + ".taken." + std::to_string(::getpid());
  if (::rename(path.c_str(), aside.c_str()) != 0) return false;
  const bool unchanged = read_file(aside) == judged;
  if (!unchanged) ::link(aside.c_str(), path.c_str());  // fails only if yet another claim exists: then it wins
  ::unlink(aside.c_str());
  return unchanged;
}

}  // namespace

std::string host_name() {
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  return host.data();
}

RunClaim::RunClaim(std::string path, std::string content, std::chrono::seconds lease)
    : path_(std::move(path)), content_(std::move(content)), lease_(lease), thread_([this] { heartbeat(); }) {}

RunClaim::~RunClaim() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
  // Only our own claim is removed: one taken over (our lease lapsed) belongs to its new holder.
  if (read_file(path_) == content_) ::unlink(path_.c_str());
}

void RunClaim::heartbeat() {
  std::unique_lock<std::mutex> lock(mutex_);
  // Touching (not rewriting) the file: a rename over it could replace a claim another process took over.
  while (!stop_signal_.wait_for(lock, lease_ / 4, [this] { return stopping_; })) {
    ::utimensat(AT_FDCWD, path_.c_str(), nullptr, 0);
  }
}

RunClaims::RunClaims(const std::string& results_dir, std::chrono::seconds lease, std::string scheduler_task)
    : directory_((fs::path(results_dir) / "claims").string()), lease_(lease), scheduler_task_(std::move(scheduler_task)) {}

std::string RunClaims::claim_path(const std::string& key) const {
  return (fs::path(directory_) / (key + ".claim")).string();
}

std::optional<ClaimHolder> RunClaims::holder(const std::string& key) const {
  const std::string text = read_file(claim_path(key));
  if (text.empty()) return std::nullopt;
  try {
    const auto json = nlohmann::json::parse(text);
    return ClaimHolder{json.at("host").get<std::string>(), json.at("pid").get<long>(),
                       json.at("claimed_at").get<std::string>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

bool RunClaims::is_stale(const std::string& path) const {
  const auto seconds = seconds_since_modified(path);
  if (!seconds) return false;  // gone: nothing to take over
  const long age = *seconds;
  if (age > lease_.count()) return true;
  try {
    const auto json = nlohmann::json::parse(read_file(path));
    // The scheduler runs one incarnation of a task at a time: a claim made under our own task id was
    // made by this task before it was preempted or requeued (perhaps on another node, whose pid we
    // cannot check).
    if (!scheduler_task_.empty() && json.value("scheduler_task", "") == scheduler_task_) return true;
    // A holder on this host is checked directly: a killed worker's claim is free at once.
    return dead_process_here(json.at("host").get<std::string>(), json.at("pid").get<long>());
  } catch (const nlohmann::json::exception&) {
    // Unreadable (damaged, or torn by a binary from before claims were linked whole): stale once older
    // than a few seconds.
    return age > 10;
  }
}

std::unique_ptr<RunClaim> RunClaims::try_claim(const std::string& key) {
  static thread_local std::mt19937_64 nonce_source{std::random_device{}()};
  const std::string path = claim_path(key);
  nlohmann::json holder = {{"host", host_name()},
                           {"pid", static_cast<long>(::getpid())},
                           {"claimed_at", utc_now()},
                           {"nonce", std::to_string(nonce_source())}};
  if (!scheduler_task_.empty()) holder["scheduler_task"] = scheduler_task_;
  const std::string content = holder.dump() + "\n";
  // Made on the first claim, not on construction: `status` reads claims of read-only results too.
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) {
    throw std::runtime_error(fmt::format("{}: cannot create the claims directory: {}; make the results directory "
                                         "writable", directory_, error.message()));
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (create_exclusive(path, content)) return std::make_unique<RunClaim>(path, content, lease_);
    const std::string judged = read_file(path);
    if (!is_stale(path)) return nullptr;
    remove_if_unchanged(path, judged);  // then the exclusive create decides, whoever removed it
  }
  return nullptr;
}

size_t RunClaims::remove_stale() {
  size_t removed = 0;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(directory_, ignored)) {
    const std::string path = entry.path().string();
    // A draft is a claim's content before it is linked in (its writer removes it within a moment); one
    // whose writer is a dead process of this host, or older than the lease, was left by a killed holder.
    const std::string draft_of = std::string(".claim") + kDraftInfix;
    if (const auto at = path.find(draft_of); at != std::string::npos) {
      const std::string tail = path.substr(at + draft_of.size());  // <tid>.<pid>.<host>
      const auto pid_at = tail.find('.') + 1, host_at = tail.find('.', pid_at) + 1;
      const bool dead_writer =
          host_at > 0 && dead_process_here(tail.substr(host_at), std::atol(tail.c_str() + pid_at));
      const bool lapsed = seconds_since_modified(path).value_or(0) > lease_.count();
      if (dead_writer || lapsed) removed += ::unlink(path.c_str()) == 0;
      continue;
    }
    if (entry.path().extension() != ".claim") continue;
    const std::string judged = read_file(path);
    if (is_stale(path) && remove_if_unchanged(path, judged)) ++removed;
  }
  return removed;
}

}  // namespace capaboost::harness
