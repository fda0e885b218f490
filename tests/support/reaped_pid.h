#pragma once
// The pid of a process that has exited and been reaped: certainly not alive (for claims and temporary
// files whose holder must look dead).

#include <sys/wait.h>
#include <unistd.h>

namespace capaboost::testing {

inline long reaped_child_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

}  // namespace capaboost::testing
