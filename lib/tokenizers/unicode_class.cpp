#include "tokenizers/unicode_class.h"

#include <algorithm>
#include <cstddef>

#include "tokenizers/unicode_tables.h"

namespace capaboost {

namespace {

bool in_ranges(char32_t cp, const unicode_tables::CodePointRange* ranges, std::size_t count) {
  // First range whose last >= cp; cp is inside it iff first <= cp.
  const auto* end = ranges + count;
  const auto* it = std::lower_bound(
      ranges, end, cp, [](const unicode_tables::CodePointRange& r, char32_t c) { return r.last < c; });
  return it != end && it->first <= cp;
}

}  // namespace

const char* unicode_tables_version() { return unicode_tables::kUnicodeVersion; }

bool is_unicode_letter(char32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return in_ranges(cp, unicode_tables::kLetterRanges, unicode_tables::kLetterRangesCount);
}

bool is_unicode_number(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(cp, unicode_tables::kNumberRanges, unicode_tables::kNumberRangesCount);
}

bool is_unicode_white_space(char32_t cp) {
  // The White_Space property (PropList.txt); unchanged since Unicode 6.3 removed U+180E.
  switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

bool is_python_space(char32_t cp) {
  // CPython's isspace is bidirectional class WS/B/S or category Zs, which adds the ASCII
  // information separators (bidi B/S) to White_Space.
  return (cp >= 0x1C && cp <= 0x1F) || is_unicode_white_space(cp);
}

bool is_bert_punctuation(char32_t cp) {
  return in_ranges(cp, unicode_tables::kBertPunctuationRanges, unicode_tables::kBertPunctuationRangesCount);
}

bool is_bert_control(char32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  return in_ranges(cp, unicode_tables::kBertControlRanges, unicode_tables::kBertControlRangesCount);
}

bool is_bert_nonspacing_mark(char32_t cp) {
  // Every Mn code point lies at or above U+0300.
  return cp >= 0x300 &&
         in_ranges(cp, unicode_tables::kBertNonspacingMarkRanges, unicode_tables::kBertNonspacingMarkRangesCount);
}

}  // namespace capaboost
