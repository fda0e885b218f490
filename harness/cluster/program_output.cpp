#include "cluster/program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>

namespace capaboost::harness {
namespace {

// A pipe whose ends close with it (close-on-exec, so other children never inherit them).
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw std::runtime_error("run_program: pipe failed");
  }
  ~Pipe() { close_both(); }
  void close_end(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  void close_both() {
    close_end(0);
    close_end(1);
  }
};

}  // namespace

ProgramOutput run_program(const std::vector<std::string>& argv, const std::string& input) {
  if (argv.empty()) throw std::invalid_argument("run_program: no program given");
  Pipe in, out, err, exec_failed;
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("run_program: fork failed");
  if (child == 0) {
    ::dup2(in.fd[0], STDIN_FILENO);
    ::dup2(out.fd[1], STDOUT_FILENO);
    ::dup2(err.fd[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    // Tells the parent the program never started (the close-on-exec pipe stays open only on failure).
    const char failed = 1;
    [[maybe_unused]] const auto written = ::write(exec_failed.fd[1], &failed, 1);
    ::_exit(127);
  }
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  exec_failed.close_end(1);

  ProgramOutput result;
  // A SIGPIPE from a program that ignores its input must not kill this process.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  if (!input.empty()) {
    [[maybe_unused]] const auto written = ::write(in.fd[1], input.data(), input.size());
  }
  in.close_end(1);
  ::sigaction(SIGPIPE, &previous, nullptr);

  // Both streams are read together: a program filling one pipe while we wait on the other would block.
  std::array<pollfd, 2> streams{{{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_streams = 2;
  std::array<char, 4096> buffer{};
  while (open_streams > 0) {
    if (::poll(streams.data(), streams.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].fd < 0 || !(streams[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(streams[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(n));
      } else {
        streams[i].fd = -1;  // poll ignores negative descriptors; the Pipe still closes it
        --open_streams;
      }
    }
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  char failed = 0;
  result.started = ::read(exec_failed.fd[0], &failed, 1) != 1;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace capaboost::harness
