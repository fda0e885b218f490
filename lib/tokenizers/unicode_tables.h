#pragma once
// Generated tables behind unicode_class.h and unicode_normalization.h. unicode_tables.cpp is written by
// generate_unicode_tables.py from the system Python's unicodedata module; regenerate, never hand-edit.

#include <cstddef>
#include <cstdint>

namespace capaboost::unicode_tables {

/// Inclusive code point range [first, last].
struct CodePointRange {
  char32_t first;
  char32_t last;
};

/// A code point whose mapping is the `length` code points at `offset` of the table's Data array.
struct CodePointMapping {
  char32_t cp;
  uint32_t offset;
  uint32_t length;
};

/// Inclusive code point range whose canonical combining class is `ccc` (never 0).
struct CombiningClassRange {
  char32_t first;
  char32_t last;
  uint8_t ccc;
};

/// Unicode version of the tables (unicodedata.unidata_version of the generating Python).
extern const char* const kUnicodeVersion;
/// General categories Lu Ll Lt Lm Lo, sorted and disjoint.
extern const CodePointRange kLetterRanges[];
extern const std::size_t kLetterRangesCount;
/// General categories Nd Nl No, sorted and disjoint.
extern const CodePointRange kNumberRanges[];
extern const std::size_t kNumberRangesCount;
/// ASCII punctuation and P*, as Hugging Face tokenizers 0.21.0's tables have them (the generator lists
/// the code points where they differ from this Unicode version).
extern const CodePointRange kBertPunctuationRanges[];
extern const std::size_t kBertPunctuationRangesCount;
/// Cc, Cf and Co, as tokenizers 0.21.0's tables have them.
extern const CodePointRange kBertControlRanges[];
extern const std::size_t kBertControlRangesCount;
/// Mn, as tokenizers 0.21.0's tables have them.
extern const CodePointRange kBertNonspacingMarkRanges[];
extern const std::size_t kBertNonspacingMarkRangesCount;
/// Every code point with a non-zero canonical combining class.
extern const CombiningClassRange kCombiningClassRanges[];
extern const std::size_t kCombiningClassRangesCount;
/// Full canonical decompositions (already in canonical order), sorted by code point; Hangul syllables
/// are not listed (they decompose arithmetically).
extern const CodePointMapping kCanonicalDecompositions[];
extern const std::size_t kCanonicalDecompositionsCount;
extern const char32_t kCanonicalDecompositionsData[];
/// Full lowercase mappings of single code points that change, sorted by code point.
extern const CodePointMapping kLowercaseMappings[];
extern const std::size_t kLowercaseMappingsCount;
extern const char32_t kLowercaseMappingsData[];

}  // namespace capaboost::unicode_tables
