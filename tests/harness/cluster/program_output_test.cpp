#include "cluster/program_output.h"

#include <catch2/catch.hpp>

#include <string>

using capaboost::harness::run_program;

TEST_CASE("run_program captures both streams, the exit code and passes its input", "[harness][slurm]") {
  const auto result = run_program({"sh", "-c", "cat; echo to-err >&2; exit 3"}, "from stdin\n");
  CHECK(result.started);
  CHECK(result.exit_code == 3);
  CHECK(result.out == "from stdin\n");
  CHECK(result.err == "to-err\n");
}

TEST_CASE("run_program reads large outputs on both streams without blocking", "[harness][slurm]") {
  // 1 MB on each stream: more than a pipe buffer holds, so reading only one would deadlock.
  const auto result = run_program({"sh", "-c", "head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2"});
  CHECK(result.exit_code == 0);
  CHECK(result.out.size() == 1000000);
  CHECK(result.err.size() == 1000000);
}

TEST_CASE("run_program says when the program does not exist", "[harness][slurm]") {
  const auto result = run_program({"capaboost-no-such-program"});
  CHECK_FALSE(result.started);
  CHECK(result.exit_code == 127);
  CHECK(run_program({"sh", "-c", "exit 127"}).started);  // a program's own 127 is not "not found"
}
