#pragma once
// Reads a GLUE TSV file: rows of tab-separated fields with NO quoting ('"' is ordinary text, as in the
// GLUE release; Python's csv module needs QUOTE_NONE for the same files). A UTF-8 byte-order mark at
// the start (MRPC) is dropped, a trailing '\r' is dropped from each line, and the last line may lack
// its '\n' (CoLA's dev.tsv does).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

class TsvReader {
 public:
  /// Reads the whole file into memory. An unreadable or empty file is an error naming the path.
  explicit TsvReader(std::filesystem::path path);

  /// Splits the next line into `fields` (views into the file's bytes, valid while the reader lives).
  /// Returns false after the last line.
  bool next(std::vector<std::string_view>& fields);
  /// 1-based number of the line the last next() returned.
  int64_t line() const { return line_; }
  const std::filesystem::path& path() const { return path_; }
  /// SHA-256 of the file's bytes exactly as stored (BOM included), hex.
  const std::string& sha256() const { return sha256_; }
  /// "<path>:<line>", the prefix of every message about the current line.
  std::string where() const;

 private:
  std::filesystem::path path_;
  std::string bytes_;
  std::string sha256_;
  size_t position_ = 0;
  int64_t line_ = 0;
};

}  // namespace capaboost
