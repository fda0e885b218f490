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

TEST_CASE("BERT's punctuation, control characters and accents follow tokenizers 0.21.0's tables",
          "[tokenizers][unicode][wordpiece]") {
  // ASCII symbols are punctuation to BERT; so is P* (¿ 、 « ‐ ・).
  for (char32_t cp : {U'!', U'$', U'+', U'^', U'`', U'~', U'-', U'\u00BF', U'\u3001', U'\u00AB', U'\u2010', U'\u30FB',
                      U'\u166D' /*So since Unicode 12, Po in tokenizers' tables*/}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_bert_punctuation(cp));
  }
  for (char32_t cp : {U'a', U'0', U' ', U'\u20AC' /*Sc*/, U'\u00A9' /*So*/,
                      U'\u2E43' /*Po, newer than tokenizers' tables*/}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_bert_punctuation(cp));
  }
  for (char32_t cp : {U'\0', U'\x01', U'\x0B', U'\x7F', U'\u0085', U'\u200B', U'\u00AD', U'\uFEFF', U'\uE000',
                      U'\U0010FFFD'}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_bert_control(cp));
  }
  for (char32_t cp : {U'\t', U'\n', U'\r', U' ', U'a', U'\u0378' /*unassigned*/, U'\u0890' /*Cf since Unicode 14*/}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_bert_control(cp));
  }
  for (char32_t cp : {U'\u0301', U'\u0323', U'\u05B0', U'\u1734' /*Mc since Unicode 14*/}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_bert_nonspacing_mark(cp));
  }
  for (char32_t cp : {U'a', U'\u0903' /*Mc*/, U'\u20DD' /*Me*/, U'\u0898' /*Mn since Unicode 14*/}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_bert_nonspacing_mark(cp));
  }
}
