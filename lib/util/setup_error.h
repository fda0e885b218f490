#pragma once
// A missing prerequisite of the machine — a Debian package, a corpus source, a data folder — as opposed
// to a failed experiment. The harness stops a sweep at the first one, prints its message (which names
// what is missing and the command that installs it) and records nothing: a run that never started
// must not sit in the results as a failure of the method.

#include <stdexcept>

namespace capaboost {

class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The exit status of a `capaboost` process stopped by a SetupError (its workers' too).
inline constexpr int kSetupErrorExitCode = 5;

}  // namespace capaboost
