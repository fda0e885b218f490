#include "corpus/wordnet_reader.h"

#include <torch/torch.h>

#include <array>
#include <filesystem>

#include "util/setup_error.h"

namespace capaboost {

namespace {

// Where the examples begin: the first '"' that opens the gloss or follows "; ". A quote inside the
// definition itself ("the word \"foo\"") is not preceded by "; " and so stays in the definition.
std::size_t examples_start(std::string_view gloss) {
  if (!gloss.empty() && gloss.front() == '"') return 0;
  std::size_t pos = gloss.find("; \"");
  return pos == std::string_view::npos ? gloss.size() : pos + 2;
}

}  // namespace

WordNetGloss parse_wordnet_gloss(std::string_view data_line) {
  WordNetGloss gloss;
  if (data_line.substr(0, 2) == "  ") return gloss;  // licence header
  const std::size_t bar = data_line.find(" | ");
  if (bar == std::string_view::npos) return gloss;
  const std::string_view text = data_line.substr(bar + 3);

  const std::size_t examples = examples_start(text);
  std::string definition = collapse_whitespace(text.substr(0, examples));
  while (!definition.empty() && (definition.back() == ';' || definition.back() == ' ')) definition.pop_back();
  gloss.definition = std::move(definition);

  // Each example is the text between a pair of quotes; whatever follows the closing quote up to the
  // next opening one is separator or attribution and is dropped.
  std::size_t pos = examples;
  while (pos < text.size()) {
    const std::size_t open = text.find('"', pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('"', open + 1);
    if (close == std::string_view::npos) break;
    std::string example = collapse_whitespace(text.substr(open + 1, close - open - 1));
    if (!example.empty()) gloss.examples.push_back(std::move(example));
    pos = close + 1;
  }
  return gloss;
}

SourceText read_wordnet(const std::string& dir, int64_t max_units) {
  constexpr std::array<const char*, 4> kDataFiles = {"data.noun", "data.verb", "data.adj", "data.adv"};
  for (const char* name : kDataFiles) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    if (!std::filesystem::is_regular_file(path)) {
      throw SetupError("corpus: the WordNet data file " + path.string() +
                       " does not exist (run `make deps`, which installs the Debian package wordnet-base)");
    }
  }
  SourceText text;
  for (const char* name : kDataFiles) {
    const std::string bytes = read_source_file(dir, name, text);
    std::size_t line_start = 0;
    while (line_start < bytes.size()) {
      std::size_t line_end = bytes.find('\n', line_start);
      if (line_end == std::string::npos) line_end = bytes.size();
      const WordNetGloss gloss = parse_wordnet_gloss(std::string_view(bytes).substr(line_start, line_end - line_start));
      line_start = line_end + 1;
      if (add_unit(text, gloss.definition, max_units)) return text;
      for (const std::string& example : gloss.examples) {
        if (add_unit(text, example, max_units)) return text;
      }
    }
  }
  return text;
}

}  // namespace capaboost
