#pragma once
// Generated code point range tables behind unicode_class.h. unicode_tables.cpp is written by
// generate_unicode_tables.py from the system Python's unicodedata module; regenerate, never hand-edit.

#include <cstddef>

namespace capaboost::unicode_tables {

/// Inclusive code point range [first, last].
struct CodePointRange {
  char32_t first;
  char32_t last;
};

/// Unicode version of the tables (unicodedata.unidata_version of the generating Python).
extern const char* const kUnicodeVersion;
/// General categories Lu Ll Lt Lm Lo, sorted and disjoint.
extern const CodePointRange kLetterRanges[];
extern const std::size_t kLetterRangesCount;
/// General categories Nd Nl No, sorted and disjoint.
extern const CodePointRange kNumberRanges[];
extern const std::size_t kNumberRangesCount;

}  // namespace capaboost::unicode_tables
