#include "tokenizers/unicode_normalization.h"

#include "tokenizers/unicode_tables.h"

namespace capaboost {

namespace {

// The mapping of `cp` in a table sorted by code point, or nullptr when it has none.
const unicode_tables::CodePointMapping* find_mapping(char32_t cp, const unicode_tables::CodePointMapping* table,
                                                     std::size_t count) {
  const auto* end = table + count;
  const auto* it = std::lower_bound(table, end, cp,
                                    [](const unicode_tables::CodePointMapping& m, char32_t c) { return m.cp < c; });
  return it != end && it->cp == cp ? it : nullptr;
}

// Hangul syllable arithmetic (Unicode §3.12, "Hangul Syllable Decomposition").
constexpr char32_t kSyllableBase = 0xAC00, kLeadBase = 0x1100, kVowelBase = 0x1161, kTrailBase = 0x11A7;
constexpr char32_t kVowelCount = 21, kTrailCount = 28, kSyllableCount = 19 * kVowelCount * kTrailCount;

}  // namespace

void append_canonical_decomposition(char32_t cp, std::u32string& out) {
  if (cp >= kSyllableBase && cp < kSyllableBase + kSyllableCount) {
    const char32_t index = cp - kSyllableBase;
    out += static_cast<char32_t>(kLeadBase + index / (kVowelCount * kTrailCount));
    out += static_cast<char32_t>(kVowelBase + (index % (kVowelCount * kTrailCount)) / kTrailCount);
    if (index % kTrailCount != 0) out += static_cast<char32_t>(kTrailBase + index % kTrailCount);
    return;
  }
  // Nothing below U+00C0 decomposes.
  const auto* mapping = cp < 0xC0 ? nullptr
                                  : find_mapping(cp, unicode_tables::kCanonicalDecompositions,
                                                 unicode_tables::kCanonicalDecompositionsCount);
  if (mapping == nullptr) {
    out += cp;
    return;
  }
  out.append(unicode_tables::kCanonicalDecompositionsData + mapping->offset, mapping->length);
}

uint8_t canonical_combining_class(char32_t cp) {
  // Every non-starter lies at or above U+0300.
  if (cp < 0x300) return 0;
  const auto* end = unicode_tables::kCombiningClassRanges + unicode_tables::kCombiningClassRangesCount;
  const auto* it = std::lower_bound(unicode_tables::kCombiningClassRanges, end, cp,
                                    [](const unicode_tables::CombiningClassRange& r, char32_t c) { return r.last < c; });
  return it != end && it->first <= cp ? it->ccc : 0;
}

void append_lowercase(char32_t cp, std::u32string& out) {
  if (cp < 0x80) {
    out += cp >= U'A' && cp <= U'Z' ? static_cast<char32_t>(cp + (U'a' - U'A')) : cp;
    return;
  }
  const auto* mapping =
      find_mapping(cp, unicode_tables::kLowercaseMappings, unicode_tables::kLowercaseMappingsCount);
  if (mapping == nullptr) {
    out += cp;
    return;
  }
  out.append(unicode_tables::kLowercaseMappingsData + mapping->offset, mapping->length);
}

}  // namespace capaboost
