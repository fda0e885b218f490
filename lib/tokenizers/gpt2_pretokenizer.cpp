#include "tokenizers/gpt2_pretokenizer.h"

#include <array>
#include <cstdint>

#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

// Every code point falls in exactly one class of the pattern: \s, \p{L}, \p{N} or the rest.
enum class CharClass : uint8_t { kSpace, kLetter, kNumber, kOther };

CharClass classify(char32_t cp) {
  if (is_unicode_white_space(cp)) return CharClass::kSpace;
  if (is_unicode_letter(cp)) return CharClass::kLetter;
  if (is_unicode_number(cp)) return CharClass::kNumber;
  return CharClass::kOther;
}

// ASCII dominates real text; a table avoids decoding and range searches for it.
const std::array<CharClass, 128>& ascii_classes() {
  static const std::array<CharClass, 128> kTable = [] {
    std::array<CharClass, 128> table{};
    for (char32_t c = 0; c < 128; ++c) table[c] = classify(c);
    return table;
  }();
  return kTable;
}

struct ClassAt {
  CharClass cls;
  std::size_t length;
};

ClassAt class_at(std::string_view text, std::size_t pos) {
  const auto b = static_cast<unsigned char>(text[pos]);
  if (b < 0x80) return {ascii_classes()[b], 1};
  const Utf8CodePoint cp = decode_utf8_at(text, pos);
  return {classify(cp.cp), cp.length};
}

// Bytes taken by 's 't 're 've 'm 'll 'd at `pos` (which holds an apostrophe), 0 if none matches.
// The pattern is case-sensitive: "'S" is not a contraction.
std::size_t contraction_length(std::string_view text, std::size_t pos) {
  const std::string_view rest = text.substr(pos + 1);
  if (rest.empty()) return 0;
  const char c = rest[0];
  if (c == 's' || c == 't' || c == 'm' || c == 'd') return 2;
  if (rest.size() >= 2 &&
      ((c == 'r' && rest[1] == 'e') || (c == 'v' && rest[1] == 'e') || (c == 'l' && rest[1] == 'l')))
    return 3;
  return 0;
}

}  // namespace

void gpt2_pretokenize(std::string_view text, std::vector<std::string_view>& pieces) {
  const std::size_t n = text.size();
  std::size_t pos = 0;
  while (pos < n) {
    const std::size_t start = pos;
    if (text[pos] == '\'') {
      if (const std::size_t len = contraction_length(text, pos)) {
        pieces.push_back(text.substr(start, len));
        pos += len;
        continue;
      }
    }
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": an optional U+0020 then a run of one class.
    ClassAt first = class_at(text, pos);
    std::size_t run = pos;
    if (text[pos] == ' ' && pos + 1 < n) {
      const ClassAt next = class_at(text, pos + 1);
      if (next.cls != CharClass::kSpace) {
        first = next;
        run = pos + 1;
      }
    }
    if (first.cls != CharClass::kSpace) {
      std::size_t end = run + first.length;
      while (end < n) {
        const ClassAt c = class_at(text, end);
        if (c.cls != first.cls) break;
        end += c.length;
      }
      pieces.push_back(text.substr(start, end - start));
      pos = end;
      continue;
    }
    // "\s+(?!\S)|\s+": a whitespace run that reaches the end is taken whole; one followed by
    // non-space leaves its last code point to prefix the next piece, unless it is a single code point.
    std::size_t end = pos;
    std::size_t last = pos;  // start of the run's last code point
    while (end < n) {
      const ClassAt c = class_at(text, end);
      if (c.cls != CharClass::kSpace) break;
      last = end;
      end += c.length;
    }
    if (end < n && last > start) end = last;
    pieces.push_back(text.substr(start, end - start));
    pos = end;
  }
}

void gpt2_pretokenize_isolating_numbers(std::string_view text, std::vector<std::string_view>& pieces) {
  std::size_t run_start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const ClassAt c = class_at(text, pos);
    if (c.cls == CharClass::kNumber) {
      if (pos > run_start) gpt2_pretokenize(text.substr(run_start, pos - run_start), pieces);
      pieces.push_back(text.substr(pos, c.length));
      run_start = pos + c.length;
    }
    pos += c.length;
  }
  if (text.size() > run_start) gpt2_pretokenize(text.substr(run_start), pieces);
}

}  // namespace capaboost
