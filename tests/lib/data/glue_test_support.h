#pragma once
// Helpers shared by the GLUE data tests: the offline mirror's location and scratch data roots.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "data/data_root.h"
#include "data/glue_task.h"

namespace capaboost::test {

/// The GLUE mirror: $CAPABOOST_DATA_DIR, else <repo>/../shared/data.
inline DataRoot mirror_root() {
  return resolve_data_root("", std::filesystem::path(CAPABOOST_SOURCE_DIR) / ".." / "shared" / "data");
}

/// Whether `task` is in the mirror; tests that need it WARN("skipped: …") and return when not.
inline bool mirror_has(const std::string& task) {
  return glue_task_available(glue_task(task), mirror_root());
}

}  // namespace capaboost::test

/// Skips the calling test (with a visible warning) when `task` is not in the mirror.
#define REQUIRE_MIRROR(task)                                                                    \
  if (!capaboost::test::mirror_has(task)) {                                                     \
    WARN("skipped: GLUE " << task << " not found under " << capaboost::test::mirror_root().path \
                          << " (set CAPABOOST_DATA_DIR to the mirror)");                        \
    return;                                                                                     \
  }

namespace capaboost::test {

/// A fresh directory under the system temp dir, removed with everything in it at scope exit.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "capaboost-glue-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  /// Writes `bytes` to `relative` (creating folders) and returns its full path.
  std::filesystem::path write(const std::string& relative, const std::string& bytes) const {
    const auto file = path / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }
};

}  // namespace capaboost::test
