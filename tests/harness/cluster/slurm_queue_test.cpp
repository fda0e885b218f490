#include "cluster/slurm_queue.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

TEST_CASE("task states parse from squeue's expanded and sacct's compressed array ids", "[harness][slurm]") {
  // squeue --array -o '%i|%T' (one line per task), then sacct -P -X -o JobID,State lines.
  const auto states = parse_task_states("12_0|RUNNING\n12_1|PENDING\n"
                                        "13_[2-4,7%2]|PENDING\n"
                                        "14_5|CANCELLED by 0\n14_5.batch|CANCELLED\n"
                                        "15|COMPLETED\nnonsense line\n16_x|RUNNING\n");
  const ArrayTaskStates expected{{"12_0", "RUNNING"}, {"12_1", "PENDING"},   {"13_2", "PENDING"},
                                 {"13_3", "PENDING"}, {"13_4", "PENDING"},   {"13_7", "PENDING"},
                                 {"14_5", "CANCELLED"}};
  CHECK(states == expected);
  CHECK(array_task_id("12", 3) == "12_3");
}

TEST_CASE("scheduler states read as queued, running or how the task ended", "[harness][slurm]") {
  CHECK(queue_word("PENDING") == "queued");
  CHECK(queue_word("REQUEUED") == "queued");
  CHECK(queue_word("RUNNING") == "running");
  CHECK(queue_word("COMPLETING") == "running");
  CHECK(queue_word("TIMEOUT") == "timeout");
  CHECK(queue_word("PREEMPTED") == "preempted");
}
