#include "tokenizers/byte_level_bpe_tokenizer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/tokenizers/offset_properties.h"
#include "lib/tokenizers/tiny_bpe_dir.h"

using namespace capaboost;
using capaboost::testing::offset_spans;
using capaboost::testing::OffsetSpans;
using capaboost::testing::TinyBpeDir;
using Tokens = std::vector<std::string>;
using Ids = std::vector<int64_t>;

TEST_CASE("BPE applies merges by rank, each merge everywhere left to right", "[tokenizers][bpe]") {
  {
    TinyBpeDir dir({{"a", "b"}, {"b", "c"}});
    CHECK(ByteLevelBpeTokenizer(dir.path()).tokenize("abc") == Tokens{"ab", "c"});
  }
  {
    TinyBpeDir dir({{"b", "c"}, {"a", "b"}});
    CHECK(ByteLevelBpeTokenizer(dir.path()).tokenize("abc") == Tokens{"a", "bc"});
  }
  {
    TinyBpeDir dir({{"a", "a"}, {"aa", "a"}});
    ByteLevelBpeTokenizer tokenizer(dir.path());
    CHECK(tokenizer.tokenize("aaaa") == Tokens{"aa", "aa"});
    CHECK(tokenizer.tokenize("aaa") == Tokens{"aaa"});          // aa|a, then (aa, a)
    CHECK(tokenizer.tokenize("aaaaa") == Tokens{"aa", "aaa"});  // aa|aa|a, then (aa, a) at the end
  }
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("the world hello") == Tokens{"the", "Ġworld", "Ġhello"});
  CHECK(tokenizer.tokenize(" the") == Tokens{"Ġthe"});
  // The cache must return the same answer as the first computation.
  CHECK(tokenizer.tokenize(" the the") == Tokens{"Ġthe", "Ġthe"});
  CHECK(tokenizer.encode_text("hello") == Ids{dir.id("hello")});
}

TEST_CASE("BPE works on bytes: whitespace and non-ASCII become byte symbols", "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("a\n\t b") == Tokens{"a", "Ċ", "ĉ", "Ġ", "b"});
  CHECK(tokenizer.tokenize("\xC3\xA9") == Tokens{"Ã", "©"});  // é = C3 A9
  CHECK(tokenizer.encode_text("\xF0\x9F\x98\x80") ==
        Ids{dir.byte_id(0xF0), dir.byte_id(0x9F), dir.byte_id(0x98), dir.byte_id(0x80)});
  CHECK_THROWS_WITH(tokenizer.encode_text("ok\xFF"), Catch::Contains("tokenizer input is not valid UTF-8") &&
                                                         Catch::Contains("byte offset 2"));
}

TEST_CASE("special tokens in the text map to their ids and <mask> eats the whitespace before it",
          "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const int64_t a = dir.id("a"), b = dir.id("b"), space = dir.id("Ġ"), mask = dir.id("<mask>");
  CHECK(tokenizer.encode_text("a <mask>") == Ids{a, mask});
  CHECK(tokenizer.encode_text("a \xE3\x80\x80\t\x1C<mask>b") == Ids{a, mask, b});  // Python isspace() run
  CHECK(tokenizer.encode_text("a <s>") == Ids{a, space, 0});                       // <s> strips nothing
  CHECK(tokenizer.encode_text("a </s> b") == Ids{a, space, 2, space, b});
  CHECK(tokenizer.encode_text("<pad><unk><mask><mask>") == Ids{1, 3, mask, mask});
  CHECK(tokenizer.encode_text("<s> <mask>") == Ids{0, mask});
  CHECK(tokenizer.encode_text("<<s>") == Ids{dir.id("<"), 0});
  CHECK(tokenizer.tokenize("<S> <mask >") == Tokens{"<", "S", ">", "Ġ", "<", "m", "a", "s", "k", "Ġ", ">"});
}

TEST_CASE("add_prefix_space prepends a space unless the text starts with Python whitespace",
          "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer plain(dir.path());
  ByteLevelBpeTokenizer prefixed(dir.path(), ByteLevelBpeOptions().add_prefix_space(true));
  CHECK(plain.tokenize("hello world") == Tokens{"hello", "Ġworld"});
  CHECK(prefixed.tokenize("hello world") == Tokens{"Ġhello", "Ġworld"});
  CHECK(prefixed.tokenize(" hello") == Tokens{"Ġhello"});
  CHECK(prefixed.tokenize("\thello") == Tokens{"ĉ", "hello"});
  CHECK(prefixed.tokenize("\x1Chello") == Tokens{"Ĝ", "hello"});
  CHECK(prefixed.tokenize("") == Tokens{});
  CHECK(prefixed.encode_text("<mask>") == Ids{dir.id("<mask>")});  // the added space is eaten
  CHECK(prefixed.encode_text("<s>") == Ids{dir.id("Ġ"), 0});
}

TEST_CASE("decode(encode(x)) == x for varied Unicode text", "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const std::vector<std::string> texts = {
      "",
      "the world, hello!",
      "  leading and trailing  ",
      "line one\nline two\r\n\n\ttabbed\t\tend\n",
      "caf\xC3\xA9 na\xC3\xAFve Z\xC3\xBCrich \xC3\x85ngstr\xC3\xB6m",
      "cafe\xCC\x81 n\xCC\x83 a\xCC\x8A\xCC\x81",  // combining marks
      "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",  // CJK
      "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",
      "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 "
      "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87",
      "\xF0\x9F\x98\x80 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0"
      "\x9F\x91\xA7 \xE2\x9D\xA4\xEF\xB8\x8F",  // emoji, ZWJ, variation selector
      "\xEF\xBB\xBF"
      "BOM \xE2\x80\x8B zero\xC2\xA0width \xE3\x80\x80 ideographic",
      std::string("nul\0byte\x7F\x1C", 10),
      "\xF4\x8F\xBF\xBF \xF0\x90\x80\x80",
      "\xC4\xA0 \xC4\x8A \xC3\x83\xC2\xA9",  // text that looks like byte-level symbols
  };
  for (const auto& text : texts) {
    INFO("text: " << text);
    const Ids ids = tokenizer.encode_text(text);
    CHECK(tokenizer.decode(ids) == text);
    CHECK(tokenizer.decode(tokenizer.encode(text).input_ids, /*skip_special_tokens=*/true) == text);
  }
}

TEST_CASE("decode keeps or skips special tokens and replaces broken UTF-8", "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const Ids ids = {0, dir.id("hello"), dir.id("<mask>"), dir.id("Ġworld"), 2, 2, 1};
  CHECK(tokenizer.decode(ids) == "<s>hello<mask> world</s></s><pad>");
  CHECK(tokenizer.decode(ids, /*skip_special_tokens=*/true) == "hello world");
  // A truncated emoji and a lone continuation byte decode to U+FFFD, as HF errors="replace".
  CHECK(tokenizer.decode({dir.byte_id(0xF0), dir.byte_id(0x9F), dir.byte_id(0x98), dir.id("a")}) ==
        "\xEF\xBF\xBD"
        "a");
  CHECK(tokenizer.decode({dir.byte_id(0x80)}) == "\xEF\xBF\xBD");
  CHECK_THROWS_WITH(tokenizer.decode({5, tokenizer.vocab_size()}), Catch::Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(tokenizer.decode({-1}), Catch::Contains("id -1 is outside"));
}

TEST_CASE("ByteLevelBpeTokenizer reports ids and rejects files that do not belong together",
          "[tokenizers][bpe]") {
  TinyBpeDir dir;
  {
    ByteLevelBpeTokenizer tokenizer(dir.path());
    CHECK(tokenizer.vocab_size() == 4 + 256 + 15 + 1);
    CHECK(tokenizer.bos_id() == 0);
    CHECK(tokenizer.pad_id() == 1);
    CHECK(tokenizer.eos_id() == 2);
    CHECK(tokenizer.unk_id() == 3);
    CHECK(tokenizer.mask_id() == tokenizer.vocab_size() - 1);
    CHECK(tokenizer.token_to_id("Ġwor") == dir.id("Ġwor"));
    CHECK(tokenizer.id_to_token(dir.id("Ġwor")) == "Ġwor");
    CHECK_THROWS_WITH(tokenizer.token_to_id("zebra"), Catch::Contains("\"zebra\" is not in"));
  }
  SECTION("a merge whose result is not in the vocabulary") {
    dir.write("merges.txt", "#version: 0.2\nĠ t\nx y\n");
    CHECK_THROWS_WITH(ByteLevelBpeTokenizer(dir.path()), Catch::Contains("merges.txt line 3 (\"x y\")") &&
                                                             Catch::Contains("do not belong together"));
  }
  SECTION("a byte symbol is missing") {
    nlohmann::json vocab = dir.vocab();
    vocab.erase("Ā");
    vocab["replacement"] = dir.id("Ā");
    dir.write("vocab.json", vocab.dump());
    CHECK_THROWS_WITH(ByteLevelBpeTokenizer(dir.path()),
                      Catch::Contains("no token \"Ā\"") && Catch::Contains("byte 0x00"));
  }
  SECTION("a special token is missing") {
    nlohmann::json vocab = dir.vocab();
    vocab.erase("<mask>");
    vocab["[MASK]"] = dir.id("<mask>");
    dir.write("vocab.json", vocab.dump());
    CHECK_THROWS_WITH(ByteLevelBpeTokenizer(dir.path()),
                      Catch::Contains("no token \"<mask>\"") && Catch::Contains("mask token"));
  }
}

TEST_CASE("token offsets are code point spans with the spaces a token carries trimmed off", "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const auto words = tokenizer.encode_text_with_offsets("the world hello");
  // "Ġworld" spans "world", not " world".
  CHECK(offset_spans(tokenizer, "the world hello") == OffsetSpans{{0, 3}, {4, 9}, {10, 15}});
  std::vector<int64_t> ids;
  for (const auto& token : words) ids.push_back(token.id);
  CHECK(ids == tokenizer.encode_text("the world hello"));
  // A lone space token keeps an empty span where it ends; control characters are not trimmed.
  CHECK(offset_spans(tokenizer, "a\n\t b") == OffsetSpans{{0, 1}, {1, 2}, {2, 3}, {4, 4}, {4, 5}});
  // Tokens that cut a character span the whole character: é is two byte tokens, 😀 four.
  CHECK(offset_spans(tokenizer, "x\xC3\xA9") == OffsetSpans{{0, 1}, {1, 2}, {1, 2}});
  CHECK(offset_spans(tokenizer, "\xF0\x9F\x98\x80!") ==
        OffsetSpans{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {1, 2}});
  // Whitespace <mask> eats belongs to no token; special tokens span their text.
  CHECK(offset_spans(tokenizer, "a \xE3\x80\x80<mask>b") == OffsetSpans{{0, 1}, {3, 9}, {9, 10}});
  CHECK(offset_spans(tokenizer, "a </s>") == OffsetSpans{{0, 1}, {2, 2}, {2, 6}});
  CHECK(tokenizer.encode_text_with_offsets("").empty());
}

TEST_CASE("with add_prefix_space the added space maps to character 0 and the first token keeps it",
          "[tokenizers][bpe]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer prefixed(dir.path(), ByteLevelBpeOptions().add_prefix_space(true));
  CHECK(offset_spans(prefixed, "hello world") == OffsetSpans{{0, 5}, {6, 11}});
  // A text that starts with its own space gets none added; Hugging Face keeps that one space too.
  CHECK(offset_spans(prefixed, " hello") == OffsetSpans{{0, 6}});
}
