#include "tokenizers/gpt2_pretokenizer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace capaboost;

namespace {
std::vector<std::string> split(std::string_view text) {
  std::vector<std::string_view> views;
  gpt2_pretokenize(text, views);
  return {views.begin(), views.end()};
}
using Pieces = std::vector<std::string>;
}  // namespace

// Expected pieces are Python's regex.findall with the GPT-2 pattern (regex 2026.5.9); a random-string
// comparison against it agreed on every string whose code points are assigned in Unicode 14.0.
TEST_CASE("GPT-2 pattern: words keep one leading space, spaces before a word leave it one",
          "[tokenizers][pretokenizer]") {
  CHECK(split("") == Pieces{});
  CHECK(split("Hello world") == Pieces{"Hello", " world"});
  CHECK(split("Hello   world") == Pieces{"Hello", "  ", " world"});
  CHECK(split("Hello world  ") == Pieces{"Hello", " world", "  "});
  CHECK(split("  a") == Pieces{" ", " a"});
  CHECK(split("a\t\tb") == Pieces{"a", "\t", "\t", "b"});
  CHECK(split("a\tb") == Pieces{"a", "\t", "b"});
  CHECK(split("Hello \n world") == Pieces{"Hello", " \n", " world"});
  CHECK(split("\n\n\n") == Pieces{"\n\n\n"});
  CHECK(split("x \xE3\x80\x80y") == Pieces{"x", " ", "\xE3\x80\x80", "y"});  // U+3000 is \s, not " "
}

TEST_CASE("GPT-2 pattern: contractions are case-sensitive and punctuation runs greedy",
          "[tokenizers][pretokenizer]") {
  CHECK(split("shouldn't've") == Pieces{"shouldn", "'t", "'ve"});
  CHECK(split("they'll I'm we'd") == Pieces{"they", "'ll", " I", "'m", " we", "'d"});
  CHECK(split("She'S") == Pieces{"She", "'", "S"});
  CHECK(split("''s") == Pieces{"''", "s"});
  CHECK(split(" 's") == Pieces{" '", "s"});
  CHECK(split("'") == Pieces{"'"});
  CHECK(split("f(x) = x^2 + 1") == Pieces{"f", "(", "x", ")", " =", " x", "^", "2", " +", " 1"});
  CHECK(split("...and") == Pieces{"...", "and"});
}

TEST_CASE("GPT-2 pattern: Unicode letters, numbers, marks and emoji", "[tokenizers][pretokenizer]") {
  CHECK(split("3.14 ½x") == Pieces{"3", ".", "14", " ½", "x"});
  CHECK(split("caf\xC3\xA9 na\xC3\xAFve") == Pieces{"caf\xC3\xA9", " na\xC3\xAFve"});
  // A combining acute (Mn) is neither letter nor number: it splits the word.
  CHECK(split("cafe\xCC\x81s") == Pieces{"cafe", "\xCC\x81", "s"});
  CHECK(split("\xE4\xBD\xA0\xE5\xA5\xBD \xE4\xB8\x96") ==
        Pieces{"\xE4\xBD\xA0\xE5\xA5\xBD", " \xE4\xB8\x96"});
  CHECK(split("\xF0\x9F\x98\x80 Hi \xF0\x9F\x98\x80\xF0\x9F\x98\x80") ==
        Pieces{"\xF0\x9F\x98\x80", " Hi", " \xF0\x9F\x98\x80\xF0\x9F\x98\x80"});
  CHECK(split("a\xC2\xA0"
              "b") == Pieces{"a", "\xC2\xA0", "b"});  // NBSP is \s
  CHECK(split("a\x1C"
              "b") == Pieces{"a", "\x1C", "b"});  // U+001C is not \s in `regex`
}

TEST_CASE("GPT-2 pieces tile the text", "[tokenizers][pretokenizer]") {
  const std::string text =
      " e.g. \nquick  e.g. \nisn't \n$5, modelI\nA \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD\t\t ";
  std::string joined;
  for (const auto& piece : split(text)) {
    CHECK_FALSE(piece.empty());
    joined += piece;
  }
  CHECK(joined == text);
}
