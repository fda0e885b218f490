#pragma once
// Loads one file of a GLUE task (original GLUE TSV release layout) into text examples.
// Train/dev files are labeled, test files are not. Malformed input — a truncated row, a wrong column
// count, a label outside the task's vocabulary, a non-numeric or out-of-range STS-B score, a missing
// header column, an empty file — is an error naming the file, the line and the fix.

#include <filesystem>
#include <string>
#include <vector>

#include "data/data_root.h"
#include "data/example.h"
#include "data/glue_task.h"

namespace capaboost {

/// The examples of one file, with the file's identity for provenance.
struct GlueFileData {
  std::filesystem::path path;
  std::string sha256;  ///< of the file's bytes, as `sha256sum` prints it
  std::vector<Example> examples;
};

/// Reads `file` of `task` under `root`. Texts are kept verbatim (SST-2's trailing space before the tab
/// included, as Hugging Face `datasets` keeps it). Throws MissingDataError if the file is absent.
GlueFileData load_glue_file(const TaskInfo& task, const DataRoot& root, GlueFile file);

/// Reads a GLUE-format TSV at an arbitrary path with `task`'s column layout (`labeled`: train/dev
/// layout with a label column; otherwise the test layout).
GlueFileData load_glue_tsv(const TaskInfo& task, const std::filesystem::path& path, bool labeled);

}  // namespace capaboost
