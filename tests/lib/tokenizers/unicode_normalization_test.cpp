#include "tokenizers/unicode_normalization.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace capaboost;

namespace {

std::u32string decomposed(char32_t cp) {
  std::u32string out;
  append_canonical_decomposition(cp, out);
  return out;
}

std::u32string lowered(char32_t cp) {
  std::u32string out;
  append_lowercase(cp, out);
  return out;
}

}  // namespace

TEST_CASE("canonical decomposition is full, ordered, and arithmetic for Hangul", "[tokenizers][unicode]") {
  CHECK(decomposed(U'a') == U"a");
  CHECK(decomposed(U'é') == U"e\u0301");
  CHECK(decomposed(U'\u01D5') == U"U\u0308\u0304");  // Ǖ: recursive (Ü + macron)
  CHECK(decomposed(U'\u1E69') == U"s\u0323\u0307");  // ṩ: dot below (220) before dot above (230)
  CHECK(decomposed(U'\u212B') == U"A\u030A");        // angstrom sign: a singleton, then further
  CHECK(decomposed(U'\uAC00') == U"\u1100\u1161");   // 가: lead + vowel
  CHECK(decomposed(U'\uAC01') == U"\u1100\u1161\u11A8");  // 각: + trail
  CHECK(decomposed(U'\uD7A3') == U"\u1112\u1175\u11C2");  // the last syllable
  CHECK(decomposed(U'\uFB01') == U"\uFB01");   // ﬁ: compatibility only
  CHECK(decomposed(U'\U00011938') == U"\U00011938");  // as tokenizers 0.21.0, which predates it
}

TEST_CASE("canonical ordering sorts runs of non-starters by combining class, stably", "[tokenizers][unicode]") {
  CHECK(canonical_combining_class(U'a') == 0);
  CHECK(canonical_combining_class(U'\u0301') == 230);
  CHECK(canonical_combining_class(U'\u0323') == 220);
  CHECK(canonical_combining_class(U'\u0345') == 240);
  struct Tagged {
    char32_t cp;
    int tag;
  };
  std::vector<Tagged> chars{{U'a', 0}, {U'\u0301', 1}, {U'\u0345', 2}, {U'\u0323', 3}, {U'\u0300', 4}, {U'b', 5}, {U'\u0301', 6}};
  canonical_reorder(chars, [](const Tagged& t) { return t.cp; });
  std::vector<int> tags;
  for (const auto& t : chars) tags.push_back(t.tag);
  CHECK(tags == std::vector<int>{0, 3, 1, 4, 2, 5, 6});
}

TEST_CASE("full lowercase mapping of single code points", "[tokenizers][unicode]") {
  CHECK(lowered(U'A') == U"a");
  CHECK(lowered(U'a') == U"a");
  CHECK(lowered(U'1') == U"1");
  CHECK(lowered(U'\u00C9') == U"\u00E9");
  CHECK(lowered(U'\u0130') == U"i\u0307");  // expands
  CHECK(lowered(U'\u03A3') == U"\u03C3");   // no final-sigma context
  CHECK(lowered(U'\u1E9E') == U"\u00DF");
  CHECK(lowered(U'\u2126') == U"\u03C9");   // ohm sign
  CHECK(lowered(U'\U00010400') == U"\U00010428");
  CHECK(lowered(U'中') == U"中");
}
