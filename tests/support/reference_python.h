#pragma once
// Running a checker script under the system interpreter that has Debian's python3-torch
// (`command -v -p python3`; the first python3 on PATH may lack torch).

#include <stdio.h>
#include <sys/wait.h>

#include <array>
#include <optional>
#include <string>

namespace capaboost::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

/// The system python3 (`command -v -p python3`), torch or not, else nullopt.
inline std::optional<std::string> system_python() {
  static const std::optional<std::string> interpreter = []() -> std::optional<std::string> {
    auto found = run_command("command -v -p python3");
    if (found.exit_code != 0 || found.output.empty()) return std::nullopt;
    return found.output.substr(0, found.output.find('\n'));
  }();
  return interpreter;
}

/// The system python3 when it can import torch, else nullopt (callers skip with a message).
inline std::optional<std::string> reference_python() {
  static const std::optional<std::string> interpreter = []() -> std::optional<std::string> {
    const auto path = system_python();
    if (!path || run_command("'" + *path + "' -c 'import torch'").exit_code != 0) return std::nullopt;
    return path;
  }();
  return interpreter;
}

}  // namespace capaboost::testing
