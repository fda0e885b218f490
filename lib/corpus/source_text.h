#pragma once
// What every corpus reader produces: plain UTF-8 text units (one sentence or paragraph each, whitespace
// normalised, no newline inside) plus the provenance of the raw files they came from.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

/// One raw file a reader consumed, as recorded in the corpus manifest.
struct SourceFile {
  std::string name;    ///< path relative to the source directory (location-independent provenance)
  std::string sha256;  ///< of the raw bytes
  int64_t bytes = 0;
};

/// The text units of one source and the files read to produce them.
struct SourceText {
  std::vector<std::string> units;
  std::vector<SourceFile> files;
};

/// Reads `dir`/`name` whole, records it in `text.files` and returns its bytes; the error names the file.
std::string read_source_file(const std::filesystem::path& dir, const std::string& name, SourceText& text);

/// Collapses every run of ASCII whitespace to one space and trims both ends.
std::string collapse_whitespace(std::string_view text);

/// Number of whitespace-separated words in `text`.
int64_t count_words(std::string_view text);

/// Appends `unit` (after collapse_whitespace) unless it is empty; returns whether `limit` units
/// (0 = no limit) are now reached, so readers stop early for slices.
bool add_unit(SourceText& text, std::string_view unit, int64_t limit);

}  // namespace capaboost
