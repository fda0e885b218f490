#pragma once
// What the fuzz targets share. Most readers take a path, so the input becomes a file in a directory of
// this process's own (several fuzzing processes may run at once), removed when the process exits.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace capaboost::fuzz {

/// This process's scratch directory (mkdtemp under the temp directory), made on first use.
inline const std::filesystem::path& scratch_directory() {
  struct Scratch {
    std::filesystem::path path;
    Scratch() {
      std::string pattern = (std::filesystem::temp_directory_path() / "capaboost-fuzz-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) {
        std::perror("capaboost fuzz: mkdtemp");
        std::abort();
      }
      path = pattern;
    }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Scratch scratch;
  return scratch.path;
}

/// Writes the fuzzer's input to `name` (a path relative to the scratch directory; its folders are made)
/// and returns the file's path.
inline std::string write_input(const uint8_t* data, std::size_t size, const std::string& name) {
  const auto path = scratch_directory() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) {
    std::perror("capaboost fuzz: writing the input file");
    std::abort();
  }
  return path.string();
}

}  // namespace capaboost::fuzz
