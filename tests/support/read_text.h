#pragma once
// A whole file as a string, for tests that compare outputs and logs (empty when it cannot be read).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace capaboost::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace capaboost::testing
