#pragma once
// Small text helpers tests share: writing a file (creating its folders) and counting a substring.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

namespace capaboost::testing {

/// Writes `text` to `path` byte for byte, creating the folders above it.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// How often `what` occurs in `text`, overlaps included.
inline size_t count_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace capaboost::testing
