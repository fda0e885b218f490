#include "store/run_claims.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "support/reaped_pid.h"
#include "support/temp_dir.h"

using namespace capaboost::harness;
using capaboost::testing::TempDir;
using Catch::Contains;
using capaboost::testing::reaped_child_pid;
namespace fs = std::filesystem;

namespace {

void write_claim(const std::string& path, const std::string& host, long pid) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << nlohmann::json{{"host", host}, {"pid", pid}, {"claimed_at", "2026-01-01T00:00:00Z"}}.dump();
}

void age_by(const std::string& path, int seconds) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = time(nullptr) - seconds;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

}  // namespace

TEST_CASE("a claim is exclusive while its holder lives and released when it ends", "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string());
  {
    const auto claim = claims.try_claim("k1");
    REQUIRE(claim);
    REQUIRE(fs::exists(claims.claim_path("k1")));
    const auto holder = claims.holder("k1");
    REQUIRE(holder);
    CHECK(holder->host == host_name());
    CHECK(holder->pid == static_cast<long>(getpid()));
    CHECK_FALSE(claims.is_stale(claims.claim_path("k1")));
    CHECK(claims.try_claim("k1") == nullptr);  // held, by a live process (this one)
    CHECK(claims.try_claim("k2") != nullptr);  // other keys are free
  }
  CHECK_FALSE(fs::exists(claims.claim_path("k1")));
  CHECK(claims.try_claim("k1") != nullptr);
}

TEST_CASE("claims of dead local processes and of lapsed leases are taken over, live ones are not",
          "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string(), std::chrono::seconds(60));
  write_claim(claims.claim_path("killed"), host_name(), reaped_child_pid());
  write_claim(claims.claim_path("remote-fresh"), "another-node", 12345);
  write_claim(claims.claim_path("remote-lapsed"), "another-node", 12345);
  age_by(claims.claim_path("remote-lapsed"), 120);
  write_claim(claims.claim_path("torn"), host_name(), 0);
  std::ofstream(claims.claim_path("torn")) << "{\"host\": ";  // a crash between create and write
  age_by(claims.claim_path("torn"), 30);

  CHECK(claims.is_stale(claims.claim_path("killed")));
  CHECK_FALSE(claims.is_stale(claims.claim_path("remote-fresh")));  // a live holder elsewhere, as far as we know
  CHECK(claims.is_stale(claims.claim_path("remote-lapsed")));
  CHECK(claims.is_stale(claims.claim_path("torn")));

  for (const char* key : {"killed", "remote-lapsed", "torn"}) {
    INFO(key);
    const auto claim = claims.try_claim(key);
    REQUIRE(claim);
    CHECK(claims.holder(key)->pid == static_cast<long>(getpid()));
  }
  CHECK(claims.try_claim("remote-fresh") == nullptr);
}

TEST_CASE("a requeued cluster task takes over the claim of its earlier incarnation on any node",
          "[harness][store][claims]") {
  TempDir dir;
  RunClaims earlier(dir.path().string(), RunClaims::kDefaultLease, "4711");
  auto claim = earlier.try_claim("k");  // the first incarnation holds it
  REQUIRE(claim);
  CHECK(nlohmann::json::parse(std::ifstream(earlier.claim_path("k"))).at("scheduler_task") == "4711");
  // Moved to another node, as requeued tasks are: pid and host are not checkable from there.
  auto moved = nlohmann::json::parse(std::ifstream(earlier.claim_path("k")));
  moved["host"] = "another-node";
  std::ofstream(earlier.claim_path("k")) << moved.dump();

  RunClaims requeued(dir.path().string(), RunClaims::kDefaultLease, "4711");
  RunClaims other_task(dir.path().string(), RunClaims::kDefaultLease, "4712");
  RunClaims local(dir.path().string());
  CHECK(requeued.is_stale(requeued.claim_path("k")));
  CHECK_FALSE(other_task.is_stale(other_task.claim_path("k")));
  CHECK_FALSE(local.is_stale(local.claim_path("k")));
  CHECK(other_task.try_claim("k") == nullptr);
  CHECK(requeued.try_claim("k") != nullptr);
}

TEST_CASE("a holder whose claim was taken over leaves the new claim in place", "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string());
  auto claim = claims.try_claim("k");
  REQUIRE(claim);
  write_claim(claims.claim_path("k"), "another-node", 7);  // taken over while our lease had lapsed
  claim.reset();
  REQUIRE(fs::exists(claims.claim_path("k")));
  CHECK(claims.holder("k")->host == "another-node");
}

TEST_CASE("remove_stale clears what killed processes left and keeps live claims", "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string());
  write_claim(claims.claim_path("a"), host_name(), reaped_child_pid());
  write_claim(claims.claim_path("b"), host_name(), reaped_child_pid());
  const auto live = claims.try_claim("c");
  CHECK(claims.remove_stale() == 2);
  CHECK_FALSE(fs::exists(claims.claim_path("a")));
  CHECK(fs::exists(claims.claim_path("c")));
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(claims.directory())) files += entry.is_regular_file();
  CHECK(files == 1);  // nothing set aside is left behind
}

TEST_CASE("a held claim is touched while its run executes, so its lease never lapses", "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string(), std::chrono::seconds(4));  // touched every second
  const auto claim = claims.try_claim("k");
  REQUIRE(claim);
  age_by(claims.claim_path("k"), 100);
  REQUIRE(claims.is_stale(claims.claim_path("k")) == true);  // by age alone
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  CHECK_FALSE(claims.is_stale(claims.claim_path("k")));
}

TEST_CASE("a results directory that cannot hold claims is named with the fix", "[harness][store][claims]") {
  TempDir dir;
  std::ofstream(dir.file("not-a-directory")) << "x";
  RunClaims claims(dir.file("not-a-directory"));
  CHECK_THROWS_WITH(claims.try_claim("k"), Contains("not-a-directory/claims") && Contains("writable"));
}

TEST_CASE("a claim is never seen empty, so one killed while claiming is free at once", "[harness][store][claims]") {
  TempDir dir;
  RunClaims claims(dir.path().string());
  const std::string path = claims.claim_path("k");
  REQUIRE(claims.try_claim("warm-up"));  // the claims directory exists before the child starts
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // claims and releases the same key as fast as it can
    RunClaims mine(dir.path().string());
    for (int i = 0; i < 20000; ++i) mine.try_claim("k");
    _exit(0);
  }
  // Read the claim as another process would judge it: present means whole.
  int seen = 0, empty = 0, finished = 0;
  while (waitpid(child, &finished, WNOHANG) == 0) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) continue;
    char first = 0;
    seen += 1;
    empty += ::read(fd, &first, 1) != 1;
    ::close(fd);
  }
  REQUIRE(WIFEXITED(finished));
  INFO(seen << " reads of a present claim");
  CHECK(seen > 0);
  CHECK(empty == 0);
  // What a holder killed mid-claim leaves: a draft at most, which remove_stale clears at once when its
  // writer is a dead process of this host, and once older than the lease otherwise; and no claim.
  const std::string dead_local = path + ".draft.7." + std::to_string(reaped_child_pid()) + "." + host_name();
  const std::string live_local = path + ".draft.7." + std::to_string(getpid()) + "." + host_name();
  const std::string old_remote = path + ".draft.7.1.another-host";
  for (const auto& draft : {dead_local, live_local, old_remote}) std::ofstream(draft) << "{}";
  age_by(old_remote, 100000);
  CHECK(claims.remove_stale() == 2);
  CHECK_FALSE(fs::exists(dead_local));
  CHECK_FALSE(fs::exists(old_remote));
  CHECK(fs::exists(live_local));  // its writer may be about to link it
  CHECK(claims.try_claim("k") != nullptr);
}
