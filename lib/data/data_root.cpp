#include "data/data_root.h"

#include <cstdlib>

namespace capaboost {

DataRoot resolve_data_root(const std::string& explicit_root, const std::filesystem::path& fallback) {
  if (!explicit_root.empty()) return {explicit_root, "spec"};
  const char* env = std::getenv(kDataDirEnv);
  if (env != nullptr && *env != '\0') return {env, std::string("$") + kDataDirEnv};
  return {fallback, "default"};
}

std::filesystem::path glue_file_path(const TaskInfo& task, const DataRoot& root, GlueFile file) {
  return root.path / task.folder / task.file_name(file);
}

namespace {

// What is missing of `files`, or "" if all are there.
std::string describe_missing(const TaskInfo& task, const DataRoot& root, const std::vector<GlueFile>& files) {
  const auto folder = root.path / task.folder;
  if (!std::filesystem::is_directory(folder)) return "the folder " + folder.string() + " does not exist";
  std::string missing;
  for (GlueFile file : files) {
    const auto path = glue_file_path(task, root, file);
    if (!std::filesystem::is_regular_file(path))
      missing += (missing.empty() ? "missing " : ", ") + path.string();
  }
  return missing;
}

}  // namespace

void require_glue_files(const TaskInfo& task, const DataRoot& root, const std::vector<GlueFile>& files) {
  const std::string missing = describe_missing(task, root, files);
  if (missing.empty()) return;
  // One message with everything a user needs: what, where we looked and why there, how to get it.
  throw MissingDataError("GLUE task " + task.name + " is not available: " + missing + " (data root " +
                         root.path.string() + ", from " + root.origin +
                         "). Download it on a machine with internet access (from the repository root):\n"
                         "  harness/scripts/fetch_glue.sh " +
                         root.path.string() + " " + task.folder + "\nor point the spec's data root or $" +
                         kDataDirEnv + " at a folder holding " + task.folder + "/" +
                         task.file_name(GlueFile::kTrain) + " and " + task.folder + "/" +
                         task.file_name(GlueFile::kDev) + ".");
}

bool glue_task_available(const TaskInfo& task, const DataRoot& root) {
  return describe_missing(task, root, {GlueFile::kTrain, GlueFile::kDev}).empty();
}

}  // namespace capaboost
