#pragma once
// Running the Python oracle (tests/oracle/*.py: Hugging Face transformers and PEFT, pinned) for the live
// parity tests. The oracle lives in the project's venv, <source>/.venv, made by `make oracle-env`; a
// test that needs it fails when it is missing, naming that command: it is part of the suite, not an
// optional extra. Each script writes its reference data into a directory the test passes it.
//
//   capaboost::testing::TempDir dir;
//   run_oracle("model_reference.py", {dir.path().string(), "roberta"});   // fails the test on error

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "support/reference_python.h"

namespace capaboost::testing {

/// The oracle venv's interpreter, <source>/.venv/bin/python.
inline std::string oracle_python() { return CAPABOOST_SOURCE_DIR "/.venv/bin/python"; }

/// `argument` quoted for sh (single quotes; a single quote inside becomes '\'').
inline std::string shell_quoted(const std::string& argument) {
  std::string quoted = "'";
  for (const char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// Runs tests/oracle/`script` with `arguments` under the oracle venv and returns its output (stdout and
/// stderr). Fails the current test when the venv is missing or the script exits with an error, with the
/// script's output.
inline std::string run_oracle(const std::string& script, const std::vector<std::string>& arguments) {
  if (!std::filesystem::exists(oracle_python())) {
    FAIL("the Python oracle " << oracle_python()
                              << " is missing: run `make oracle-env` (a venv with the pinned transformers and peft of "
                                 "tests/oracle/requirements.txt)");
  }
  std::string command = shell_quoted(oracle_python()) + " " + shell_quoted(CAPABOOST_SOURCE_DIR "/tests/oracle/" + script);
  for (const auto& argument : arguments) command += " " + shell_quoted(argument);
  const CommandResult result = run_command(command);
  INFO("oracle command: " << command << "\noutput:\n" << result.output);
  REQUIRE(result.exit_code == 0);
  return result.output;
}

}  // namespace capaboost::testing
