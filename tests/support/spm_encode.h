#pragma once
// SentencePiece's own encoder (Debian's spm_encode) as an independent reference for the tokenizers.

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace capaboost::testing {

/// Ids of each line of `text_file` by spm_encode with `model` (written through `out_file`), or nothing when
/// spm_encode is not installed or fails.
inline std::optional<std::vector<std::vector<int64_t>>> spm_encode_lines(const std::string& model,
                                                                         const std::string& text_file,
                                                                         const std::string& out_file) {
  if (std::system("command -v spm_encode > /dev/null") != 0) return std::nullopt;
  const std::string command = "spm_encode --model='" + model + "' --output_format=id < '" + text_file + "' > '" +
                              out_file + "'";
  if (std::system(command.c_str()) != 0) return std::nullopt;
  std::vector<std::vector<int64_t>> lines;
  std::ifstream in(out_file);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ids(line);
    std::vector<int64_t> row;
    for (int64_t id; ids >> id;) row.push_back(id);
    lines.push_back(std::move(row));
  }
  return lines;
}

}  // namespace capaboost::testing
