#pragma once
// The shared folder beside the checkout (../shared: the data mirror, golden outputs, the paper's source).

#include <cstdlib>
#include <filesystem>
#include <string>

namespace capaboost::testing {

/// $CAPABOOST_SHARED_DIR (ctest sets it), else <repo>/../shared.
inline std::filesystem::path shared_dir() {
  const char* shared = std::getenv("CAPABOOST_SHARED_DIR");
  return shared ? std::filesystem::path(shared) : std::filesystem::path(CAPABOOST_SOURCE_DIR) / ".." / "shared";
}

}  // namespace capaboost::testing
