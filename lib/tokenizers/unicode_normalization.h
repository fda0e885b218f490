#pragma once
// Unicode normalization pieces over code points, from tables generated with the system Python's
// unicodedata (Unicode 14.0.0, generate_unicode_tables.py): canonical decomposition and canonical
// ordering (together NFD), and full lowercase mapping. BERT's normaliser (bert_normalizer.h) builds on
// them; they are per code point so a caller can keep track of where each output character came from.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

/// Appends the full canonical decomposition of `cp` (itself when it has none), in canonical order:
/// NFD of the single code point. Hangul syllables decompose arithmetically into their jamo (Unicode
/// §3.12). U+11938 stays whole, as in Hugging Face tokenizers 0.21.0's NFD tables.
void append_canonical_decomposition(char32_t cp, std::u32string& out);

/// Canonical combining class of `cp` (0 for starters).
uint8_t canonical_combining_class(char32_t cp);

/// Appends the full lowercase mapping of `cp` (Python's str.lower() of the single character, which may
/// expand: U+0130 → "i" U+0307); context-free, so final sigma lowercases to σ like every other Σ.
void append_lowercase(char32_t cp, std::u32string& out);

/// NFD's canonical ordering: sorts each run of non-starters by combining class, stably. `cp_of(element)`
/// gives an element's code point, so elements may carry more than the code point (e.g. where in the
/// original text they came from) and keep it as they move.
template <typename T, typename CodePointOf>
void canonical_reorder(std::vector<T>& chars, CodePointOf cp_of) {
  const auto ccc = [&](const T& element) { return canonical_combining_class(cp_of(element)); };
  for (auto run = chars.begin(); run != chars.end();) {
    if (ccc(*run) == 0) {
      ++run;
      continue;
    }
    auto end = std::find_if(run, chars.end(), [&](const T& element) { return ccc(element) == 0; });
    std::stable_sort(run, end, [&](const T& a, const T& b) { return ccc(a) < ccc(b); });
    run = end;
  }
}

}  // namespace capaboost
