#pragma once
// Running an external program (the SLURM client commands) and capturing what it prints.

#include <string>
#include <vector>

namespace capaboost::harness {

struct ProgramOutput {
  bool started = false;  ///< false: the program was not found or could not be executed
  int exit_code = -1;    ///< its exit status; -1 when it did not exit normally
  std::string out;       ///< standard output
  std::string err;       ///< standard error
};

/// Runs `argv` (argv[0] looked up on PATH, no shell: arguments need no quoting) with `input` on its
/// standard input, and waits for it.
ProgramOutput run_program(const std::vector<std::string>& argv, const std::string& input = "");

}  // namespace capaboost::harness
