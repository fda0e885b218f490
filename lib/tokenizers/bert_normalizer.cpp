#include "tokenizers/bert_normalizer.h"

#include <algorithm>
#include <string>

#include "tokenizers/unicode_class.h"
#include "tokenizers/unicode_normalization.h"
#include "tokenizers/utf8.h"

namespace capaboost {

bool is_bert_chinese_char(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

std::vector<NormalizedChar> bert_normalize(std::string_view text, const BertNormalizerOptions& options) {
  std::vector<NormalizedChar> chars;
  chars.reserve(text.size());
  // Cleaning and ideograph padding look at one character at a time: one pass.
  int64_t index = 0;
  for (std::size_t pos = 0; pos < text.size(); ++index) {
    const Utf8CodePoint decoded = decode_utf8_at(text, pos);
    pos += decoded.length;
    char32_t cp = decoded.cp;
    if (options.clean_text()) {
      if (cp == 0 || cp == 0xFFFD || is_bert_control(cp)) continue;
      // '\t', '\n' and '\r' are White_Space too, so they become ' ' here.
      if (is_unicode_white_space(cp)) cp = ' ';
    }
    if (options.handle_chinese_chars() && is_bert_chinese_char(cp)) {
      chars.push_back({' ', index});
      chars.push_back({cp, index});
      chars.push_back({' ', index});
    } else {
      chars.push_back({cp, index});
    }
  }
  std::u32string mapped;
  if (options.strip_accents().value_or(options.lowercase())) {
    // NFD over the whole text (its reordering spans characters), then the non-spacing marks go.
    std::vector<NormalizedChar> decomposed;
    decomposed.reserve(chars.size());
    for (const NormalizedChar& c : chars) {
      mapped.clear();
      append_canonical_decomposition(c.cp, mapped);
      for (const char32_t d : mapped) decomposed.push_back({d, c.source});
    }
    canonical_reorder(decomposed, [](const NormalizedChar& c) { return c.cp; });
    decomposed.erase(std::remove_if(decomposed.begin(), decomposed.end(),
                                    [](const NormalizedChar& c) { return is_bert_nonspacing_mark(c.cp); }),
                     decomposed.end());
    chars = std::move(decomposed);
  }
  if (options.lowercase()) {
    std::vector<NormalizedChar> lowered;
    lowered.reserve(chars.size());
    for (const NormalizedChar& c : chars) {
      mapped.clear();
      append_lowercase(c.cp, mapped);
      for (const char32_t l : mapped) lowered.push_back({l, c.source});
    }
    chars = std::move(lowered);
  }
  return chars;
}

std::vector<BertWord> bert_pre_tokenize(const std::vector<NormalizedChar>& chars) {
  std::vector<BertWord> words;
  std::size_t start = 0;  // first character of the word being read
  for (std::size_t i = 0; i < chars.size(); ++i) {
    const char32_t cp = chars[i].cp;
    const bool space = is_unicode_white_space(cp);
    if (!space && !is_bert_punctuation(cp)) continue;
    if (start < i) words.push_back({start, i});
    if (!space) words.push_back({i, i + 1});
    start = i + 1;
  }
  if (start < chars.size()) words.push_back({start, chars.size()});
  return words;
}

}  // namespace capaboost
