#include "tokenizers/utf8.h"

#include <catch2/catch.hpp>
#include <string>

using namespace capaboost;

TEST_CASE("check_utf8 accepts well-formed text and names the first ill-formed byte", "[tokenizers][utf8]") {
  CHECK_NOTHROW(check_utf8("", "t"));
  CHECK_NOTHROW(check_utf8("plain ascii \t\n", "t"));
  CHECK_NOTHROW(check_utf8("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF", "t"));
  CHECK_THROWS_WITH(check_utf8("ab\xC3", "my input"), Catch::Contains("my input is not valid UTF-8") &&
                                                          Catch::Contains("byte offset 2") &&
                                                          Catch::Contains("0xC3"));
  CHECK_THROWS_WITH(check_utf8("\xC0\x80", "t"), Catch::Contains("offset 0"));          // overlong NUL
  CHECK_THROWS_WITH(check_utf8("x\xED\xA0\x80", "t"), Catch::Contains("offset 1"));     // surrogate U+D800
  CHECK_THROWS_WITH(check_utf8("\xF4\x90\x80\x80", "t"), Catch::Contains("offset 0"));  // above U+10FFFF
  CHECK_THROWS_WITH(check_utf8("\x80", "t"), Catch::Contains("offset 0"));              // lone continuation
}

TEST_CASE("UTF-8 encode and decode agree on every length", "[tokenizers][utf8]") {
  for (char32_t cp : {U'\0', U'A', U'\x7F', U'\u0080', U'é', U'\u07FF', U'\u0800', U'€', U'\uFFFD',
                      U'\U00010000', U'😀', U'\U0010FFFF'}) {
    std::string s = "x";
    append_utf8(s, cp);
    const Utf8CodePoint decoded = decode_utf8_at(s, 1);
    CHECK(decoded.cp == cp);
    CHECK(decoded.length == s.size() - 1);
    CHECK(decode_last_utf8(s).cp == cp);
    CHECK_NOTHROW(check_utf8(s, "t"));
  }
}

TEST_CASE("utf8_with_replacement substitutes maximal subparts like Python errors='replace'",
          "[tokenizers][utf8]") {
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  // Expected values printed by Python 3.11: bytes.decode("utf-8", "replace").
  CHECK(utf8_with_replacement("\xE2\x82") == r);
  CHECK(utf8_with_replacement("\xED\xA0\x80") == r + r + r);
  CHECK(utf8_with_replacement("\xC0\x80") == r + r);
  CHECK(utf8_with_replacement("\xF0\x9F\x98"
                              "a") == r + "a");
  CHECK(utf8_with_replacement("\xF4\x90\x80\x80") == r + r + r + r);
  CHECK(utf8_with_replacement("\xE0\x80\xAF") == r + r + r);
  CHECK(utf8_with_replacement("\xF8\x88\x80\x80\x80") == r + r + r + r + r);
  CHECK(utf8_with_replacement("a\x80"
                              "b") == "a" + r + "b");
  CHECK(utf8_with_replacement("\xFF") == r);
  CHECK(utf8_with_replacement("\xE2\x82\xAC \xF0\x9F\x98\x80") == "\xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST_CASE("code_point_count counts characters as Python's len()", "[tokenizers][utf8]") {
  CHECK(code_point_count("") == 0);
  CHECK(code_point_count("abc") == 3);
  CHECK(code_point_count("caf\xC3\xA9") == 4);                    // é: 2 bytes
  CHECK(code_point_count("\xE6\x97\xA5\xF0\x9F\x98\x80") == 2);  // 日 (3 bytes), 😀 (4 bytes)
}
