#pragma once
// One argument as one word of a POSIX shell command line, for the few places the suite hands a command
// to a shell (gnuplot, tar, a SLURM batch script): a folder name with a quote or a space stays a name.

#include <string>

namespace capaboost {

/// `text` as one word for a POSIX shell: unchanged when it holds only characters the shell passes
/// through, else single-quoted with each inner quote written '\''.
std::string shell_quote(const std::string& text);

}  // namespace capaboost
