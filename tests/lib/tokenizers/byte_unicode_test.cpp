#include "tokenizers/byte_unicode.h"

#include <catch2/catch.hpp>
#include <set>

using namespace capaboost;

TEST_CASE("GPT-2 byte map is a bijection onto printable code points", "[tokenizers][byte_unicode]") {
  std::set<char32_t> images;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = byte_to_unicode(static_cast<uint8_t>(b));
    images.insert(cp);
    REQUIRE(unicode_to_byte(cp) == static_cast<uint8_t>(b));
  }
  CHECK(images.size() == 256);
  // Known anchors of GPT-2's table.
  CHECK(byte_symbol(' ') == "Ġ");
  CHECK(byte_symbol('\n') == "Ċ");
  CHECK(byte_symbol('\t') == "ĉ");
  CHECK(byte_symbol('\r') == "č");
  CHECK(byte_symbol(0x00) == "Ā");
  CHECK(byte_symbol(0xA0) == "ł");
  CHECK(byte_symbol(0xAD) == "Ń");
  CHECK(byte_symbol('a') == "a");
  CHECK(byte_symbol(0xE9) == "é");
  CHECK(byte_to_unicode(0x7F) == U'\u0121');
  // Code points standing for no byte.
  CHECK_FALSE(unicode_to_byte(U' ').has_value());
  CHECK_FALSE(unicode_to_byte(U'\u00AD').has_value());
  CHECK_FALSE(unicode_to_byte(U'\u0144').has_value());
  CHECK_FALSE(unicode_to_byte(U'😀').has_value());
}
