#pragma once
// Claims on runs, so that processes sharing one results directory — parallel workers, two `capaboost
// run` commands, array tasks of a cluster job — never run the same run at once.
//
// A claim is the file <results>/claims/<key>.claim, holding who made it (host, pid, time, a nonce),
// written whole to a draft and linked into place (link(2) is exclusive and atomic on local disks and NFS),
// so that a claim is never seen empty. While its run executes, the holder touches the file's
// modification time every quarter lease; a claim is stale when its holder is a dead
// process of this host or its modification time is older than the lease (a killed task on another
// node, a node lost), or when it names the scheduler task this process is (a SLURM array task that was
// preempted or requeued: the scheduler runs one incarnation of it at a time). A stale claim is taken
// over: renamed aside (one taker wins the rename), checked to be the claim judged stale, removed, and
// created anew, exclusively.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace capaboost::harness {

/// Who holds a claim, as its file says.
struct ClaimHolder {
  std::string host;
  long pid = 0;
  std::string claimed_at;  ///< UTC, ISO 8601
};

/// A held claim: touched every lease/4 by a background thread while it lives, released (its file
/// removed, if it is still this claim's) when destroyed. Move-only.
class RunClaim {
 public:
  RunClaim(std::string path, std::string content, std::chrono::seconds lease);
  ~RunClaim();
  RunClaim(const RunClaim&) = delete;
  RunClaim& operator=(const RunClaim&) = delete;

  const std::string& path() const { return path_; }

 private:
  void heartbeat();

  std::string path_;
  std::string content_;
  std::chrono::seconds lease_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread thread_;
};

class RunClaims {
 public:
  /// Long enough that a busy file server never makes a live holder look dead (it touches every lease/4).
  static constexpr std::chrono::seconds kDefaultLease{300};

  /// Claims live in <results_dir>/claims/ (created by the first claim). `lease`: how long a holder may
  /// go without touching its claim before others take it over. `scheduler_task`: for a process that is
  /// one cluster task running one run, the id the scheduler keeps across requeues (SLURM_JOB_ID); its
  /// claims carry it, and a claim carrying it is this task's own from an earlier incarnation.
  explicit RunClaims(const std::string& results_dir, std::chrono::seconds lease = kDefaultLease,
                     std::string scheduler_task = "");

  /// Claims `key` for this process: the claim, or nullptr when a live holder has it. Takes over a stale
  /// claim. Throws naming the directory when claims cannot be written (read-only or full disk).
  std::unique_ptr<RunClaim> try_claim(const std::string& key);

  /// The holder of `key`'s claim, or nullopt when none (or its file is unreadable).
  std::optional<ClaimHolder> holder(const std::string& key) const;

  /// Whether the claim file at `path` is stale (see the header comment).
  bool is_stale(const std::string& path) const;

  /// Removes every stale claim (left by killed processes whose runs finished or were given up) and
  /// every claim draft left by a holder killed while creating its claim (a dead process of this host,
  /// or older than the lease); returns how many.
  size_t remove_stale();

  std::string claim_path(const std::string& key) const;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::chrono::seconds lease_;
  std::string scheduler_task_;
};

/// This machine's host name (claims and provenance compare it).
std::string host_name();

}  // namespace capaboost::harness
