#pragma once
// Locating benchmark data: the data root comes from the experiment spec, else $CAPABOOST_DATA_DIR,
// else a caller-supplied default; tasks live in <root>/<TASK>/ in the GLUE release layout.
// A task that is absent is one MissingDataError naming the task, the path looked at and the download
// step, so a sweep can report and skip it instead of crashing.

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/glue_task.h"
#include "util/setup_error.h"

namespace capaboost {

/// Name of the environment variable consulted when the spec gives no data root.
inline constexpr const char* kDataDirEnv = "CAPABOOST_DATA_DIR";

/// A data root and where it came from (for messages and run records).
struct DataRoot {
  std::filesystem::path path;
  std::string origin = "given path";  ///< "spec", "$CAPABOOST_DATA_DIR", "default" or "given path"
};

/// The data root: `explicit_root` if non-empty (origin "spec"), else $CAPABOOST_DATA_DIR if set and
/// non-empty, else `fallback` (origin "default").
DataRoot resolve_data_root(const std::string& explicit_root, const std::filesystem::path& fallback);

/// A task's files are not under the data root. what() names the task, the paths looked at and the
/// command that downloads it.
class MissingDataError : public SetupError {
 public:
  using SetupError::SetupError;
};

/// <root>/<task folder>/<file name>; does not check existence.
std::filesystem::path glue_file_path(const TaskInfo& task, const DataRoot& root, GlueFile file);

/// Throws one MissingDataError if any of `files` of `task` is absent under `root`.
void require_glue_files(const TaskInfo& task, const DataRoot& root, const std::vector<GlueFile>& files);

/// True if the train and dev files of `task` exist under `root` (what the split protocols need).
bool glue_task_available(const TaskInfo& task, const DataRoot& root);

}  // namespace capaboost
