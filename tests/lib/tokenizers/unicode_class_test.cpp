#include "tokenizers/unicode_class.h"

#include <catch2/catch.hpp>
#include <string>

#include "tokenizers/unicode_tables.h"

using namespace capaboost;

TEST_CASE("letter and number tables are sorted, disjoint and record their Unicode version",
          "[tokenizers][unicode]") {
  // The version of the generating Python's unicodedata (14.0.0 for Debian 12's Python 3.11).
  CHECK_THAT(std::string(unicode_tables_version()), Catch::Matches(R"(\d+\.\d+\.\d+)"));
  for (auto [ranges, count] :
       {std::pair{unicode_tables::kLetterRanges, unicode_tables::kLetterRangesCount},
        std::pair{unicode_tables::kNumberRanges, unicode_tables::kNumberRangesCount}}) {
    REQUIRE(count > 100);
    for (std::size_t i = 0; i < count; ++i) {
      CHECK(ranges[i].first <= ranges[i].last);
      // Maximal ranges: a gap of at least one code point separates neighbours.
      if (i > 0) CHECK(ranges[i - 1].last + 1 < ranges[i].first);
    }
  }
}

TEST_CASE("general categories L* and N* are classified as Python's unicodedata", "[tokenizers][unicode]") {
  // Letters of every L subcategory, across planes.
  for (char32_t cp : {U'a', U'Z', U'é', U'ß', U'ǅ' /*Lt*/, U'ʰ' /*Lm*/, U'ا', U'中', U'ｆ', U'ﬁ',
                      U'\U0001D400', U'\U00020000', U'\U0002A6DF'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_unicode_letter(cp));
    CHECK_FALSE(is_unicode_number(cp));
  }
  // Numbers of every N subcategory: Nd, Nl, No.
  for (char32_t cp : {U'0', U'9', U'٣', U'１', U'Ⅻ', U'½', U'①', U'²', U'\U0001D7CE'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_unicode_number(cp));
    CHECK_FALSE(is_unicode_letter(cp));
  }
  // Marks, punctuation, symbols, format, controls, unassigned, private use and emoji are neither.
  for (char32_t cp :
       {U'\u0301' /*Mn*/, U'\u0903' /*Mc*/, U'\'', U'_', U'€', U'©', U'\u200B', U'\u200D', U'\uFEFF', U'\0',
        U'\x7F', U'😀', U'\U0001F3FD', U'\u0378' /*unassigned*/, U'\uE000' /*private use*/, U'\U0010FFFF'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_unicode_letter(cp));
    CHECK_FALSE(is_unicode_number(cp));
  }
}

TEST_CASE("the pattern whitespace is White_Space while Python isspace adds U+001C..U+001F",
          "[tokenizers][unicode]") {
  for (char32_t cp : {U'\t', U'\n', U'\v', U'\f', U'\r', U' ', U'\u0085', U'\u00A0', U'\u1680', U'\u2000',
                      U'\u200A', U'\u2028', U'\u2029', U'\u202F', U'\u205F', U'\u3000'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_unicode_white_space(cp));
    CHECK(is_python_space(cp));
  }
  for (char32_t cp : {U'\x1C', U'\x1F'}) {
    CHECK_FALSE(is_unicode_white_space(cp));
    CHECK(is_python_space(cp));
  }
  for (char32_t cp : {U'a', U'\0', U'\x1B', U'!', U'\u180E', U'\u200B', U'\uFEFF', U'\u2060'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_unicode_white_space(cp));
    CHECK_FALSE(is_python_space(cp));
  }
}
