#include "corpus/source_text.h"

#include <torch/torch.h>

#include <fstream>
#include <sstream>

#include "util/sha256.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

std::string read_source_file(const std::filesystem::path& dir, const std::string& name, SourceText& text) {
  const std::filesystem::path path = dir / name;
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in, "corpus: cannot open ", path.string(), " (run `make corpus-sources` / `make deps`)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  TORCH_CHECK(!in.bad(), "corpus: error reading ", path.string());
  std::string bytes = buffer.str();
  // Units go to the tokenizer trainer, which needs UTF-8; a broken source file must fail here, by name.
  check_utf8(bytes, path.string().c_str());
  text.files.push_back({name, sha256_hex(bytes), static_cast<int64_t>(bytes.size())});
  return bytes;
}

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (const char c : text) {
    if (is_ascii_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

int64_t count_words(std::string_view text) {
  int64_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = is_ascii_space(c);
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

bool add_unit(SourceText& text, std::string_view unit, int64_t limit) {
  std::string normalised = collapse_whitespace(unit);
  if (!normalised.empty()) text.units.push_back(std::move(normalised));
  return limit > 0 && static_cast<int64_t>(text.units.size()) >= limit;
}

}  // namespace capaboost
