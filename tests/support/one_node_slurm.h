#pragma once
// A real one-node SLURM cluster for one test: a munge key, a minimal slurm.conf on free loopback ports,
// spool and state folders in a temporary directory, munged, slurmctld and slurmd started here and
// stopped when the object goes. SLURM_CONF points the client commands (sbatch, squeue, sacct) at it
// while it lives. No accounting daemon: status must work from squeue and the records alone.

#include "support/read_text.h"
#include "support/temp_dir.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

namespace capaboost::testing {

class OneNodeSlurm {
 public:
  /// Starts the daemons and waits (up to 30 s) until the node is idle. ready() says whether it came
  /// up; why_not() says what failed (missing packages, a daemon that would not start).
  OneNodeSlurm() {
    for (const char* program : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"}) {
      if (std::system(fmt::format("command -v {} >/dev/null 2>&1", program).c_str()) != 0) {
        why_not_ = fmt::format("{} is not installed (Debian packages slurm-wlm and munge; `make deps` installs them)",
                               program);
        return;
      }
    }
    const auto& dir = temp_.path();
    std::filesystem::create_directories(dir / "munge");
    std::filesystem::create_directories(dir / "spool");
    std::filesystem::create_directories(dir / "state");
    // munged refuses a key or socket directory others can write to or read.
    std::filesystem::permissions(dir / "munge", std::filesystem::perms::owner_all);
    {
      std::ofstream key(dir / "munge" / "munge.key", std::ios::binary);
      std::mt19937_64 bytes{std::random_device{}()};
      for (int i = 0; i < 128; ++i) {
        const auto word = bytes();
        key.write(reinterpret_cast<const char*>(&word), sizeof word);
      }
    }
    std::filesystem::permissions(dir / "munge" / "munge.key", std::filesystem::perms::owner_read |
                                                                   std::filesystem::perms::owner_write);
    const std::string munge = (dir / "munge").string();
    if (!start(fmt::format("munged --force --socket={0}/munge.sock --key-file={0}/munge.key --log-file={0}/munged.log "
                           "--pid-file={0}/munged.pid --seed-file={0}/munged.seed",
                           munge),
               "munged", munge + "/munged.log")) {
      return;
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    node_ = std::string(host).substr(0, std::string(host).find('.'));
    const std::string d = dir.string();
    std::ofstream(dir / "slurm.conf") << fmt::format(
        "ClusterName=capaboost-test\n"
        "SlurmctldHost={node}(127.0.0.1)\n"
        "SlurmctldPort={ctld_port}\nSlurmdPort={d_port}\n"
        "SlurmUser={user}\nSlurmdUser=root\n"
        "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={d}/munge/munge.sock\n"
        "StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool/slurmd-%n\n"
        "SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n"
        "SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n"
        "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\n"
        "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        "ReturnToService=2\nJobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
        "JobCompType=jobcomp/none\n"
        "NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n"
        "PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP\n",
        fmt::arg("node", node_), fmt::arg("ctld_port", free_port()), fmt::arg("d_port", free_port()),
        fmt::arg("user", ::getuid() == 0 ? "root" : std::getenv("USER") ? std::getenv("USER") : "root"),
        fmt::arg("d", d), fmt::arg("cpus", std::max(1u, std::thread::hardware_concurrency())));
    ::setenv("SLURM_CONF", (dir / "slurm.conf").c_str(), 1);
    if (!start(fmt::format("slurmctld -i -f {}/slurm.conf", d), "slurmctld", d + "/slurmctld.log") ||
        !start(fmt::format("slurmd -f {}/slurm.conf -N {}", d, node_), "slurmd", d + "/slurmd.log")) {
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (shell("sinfo --noheader --format=%t").find("idle") != std::string::npos) {
        ready_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    why_not_ = "the node did not become idle within 30 s; slurmd.log says: " + tail(dir / "slurmd.log");
  }

  ~OneNodeSlurm() {
    for (const char* pid_file : {"slurmd.pid", "slurmctld.pid", "munge/munged.pid"}) {
      const std::string pid = read_text(temp_.path() / pid_file);
      if (!pid.empty()) ::kill(static_cast<pid_t>(std::stol(pid)), SIGTERM);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let them leave before their folder goes
    ::unsetenv("SLURM_CONF");
  }

  OneNodeSlurm(const OneNodeSlurm&) = delete;
  OneNodeSlurm& operator=(const OneNodeSlurm&) = delete;

  bool ready() const { return ready_; }
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& directory() const { return temp_.path(); }

 private:
  static int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
  }

  static std::string shell(const std::string& command) {
    std::string output;
    if (FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r")) {
      char buffer[256];
      while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
      ::pclose(pipe);
    }
    return output;
  }

  static std::string tail(const std::filesystem::path& log) {
    const std::string text = read_text(log);
    return text.size() > 600 ? text.substr(text.size() - 600) : text;
  }

  // Runs a daemon's start command (each forks into the background itself); false with why_not_ set
  // when it fails.
  bool start(const std::string& command, const std::string& name, const std::string& log) {
    if (std::system((command + " > /dev/null 2>&1").c_str()) == 0) return true;
    why_not_ = fmt::format("{} did not start ({}); its log says: {}", name, command, tail(log));
    return false;
  }

  TempDir temp_;
  std::string node_;
  bool ready_ = false;
  std::string why_not_;
};

}  // namespace capaboost::testing
