#pragma once
// A committed report folder against the same report rebuilt from its records (`capaboost verify`): every
// text file a report writes deterministically (Markdown, CSV, LaTeX, the figures' data and gnuplot
// scripts) must be equal byte for byte. PNG and PDF files are left out: they are rendered from the
// compared .dat and .gp files, and a PDF carries its creation date.

#include <filesystem>
#include <string>
#include <vector>

namespace capaboost::harness {

/// Whether `path` is a file the comparison covers (by its extension).
bool compared_report_file(const std::filesystem::path& path);

/// One line per difference, naming the file (relative to `committed`) and where in it: for a CSV the
/// line's leading fields and the differing column with both values, else the line number and both
/// lines. Files the rebuilt report no longer writes, and files it writes that the folder lacks, are
/// differences too. Empty when the folders agree. README.md and run_keys.txt are not report output.
std::vector<std::string> compare_report_folders(const std::filesystem::path& committed,
                                                const std::filesystem::path& rebuilt);

}  // namespace capaboost::harness
