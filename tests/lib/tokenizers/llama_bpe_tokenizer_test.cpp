// LlamaBpeTokenizer on a tiny hand-made vocabulary: merges by rank, the two pre-tokenizers, control
// tokens in text, every byte, bytes without a symbol, decode, offsets, framing, and the errors bad
// vocabulary data gets. Parity with transformers on the real SmolLM2 file: llama_bpe_tokenizer_live_test.cpp.

#include "tokenizers/llama_bpe_tokenizer.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lib/tokenizers/offset_properties.h"
#include "tokenizers/byte_unicode.h"
#include "tokenizers/utf8.h"

using namespace capaboost;
using capaboost::testing::offset_spans;
using capaboost::testing::OffsetSpans;
using Tokens = std::vector<std::string>;
using Ids = std::vector<int64_t>;

namespace {

// Merges enough for "hello", " the", whitespace pairs, "12", and a space joined to 😀's first byte.
std::vector<std::string> tiny_llama_merges() {
  return {"Ġ t", "h e", "Ġt he", "l l", "he ll", "hell o", "Ġ hello", "Ġ Ġ", "1 2", "Ċ Ċ", "Ġ ð"};
}

// Three control tokens (ids 0–2, as SmolLM2's first three), the byte symbols of every byte not in
// `missing_bytes`, in byte order, then one token per merge; BOS 1, EOS 2, unknown 0, padding 2.
LlamaBpeVocabulary tiny_llama_vocabulary(const std::vector<std::string>& merges = tiny_llama_merges(),
                                         const std::set<int>& missing_bytes = {}) {
  LlamaBpeVocabulary vocabulary;
  vocabulary.tokens = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
  vocabulary.token_types = {3, 3, 3};
  for (int b = 0; b < 256; ++b) {
    if (missing_bytes.count(b) != 0) continue;
    vocabulary.tokens.push_back(byte_symbol(static_cast<uint8_t>(b)));
    vocabulary.token_types.push_back(1);
  }
  for (const std::string& merge : merges) {
    const std::size_t space = merge.find(' ');
    vocabulary.tokens.push_back(merge.substr(0, space) + merge.substr(space + 1));
    vocabulary.token_types.push_back(1);
  }
  vocabulary.merges = merges;
  vocabulary.bos_id = 1;
  vocabulary.eos_id = 2;
  vocabulary.unk_id = 0;
  vocabulary.pad_id = 2;
  return vocabulary;
}

// The id of byte `b`'s symbol in a tiny vocabulary without missing bytes.
int64_t tiny_byte_id(int b) { return 3 + b; }

}  // namespace

TEST_CASE("Llama BPE applies merges by rank, each merge everywhere left to right", "[llama_tokenizer]") {
  CHECK(LlamaBpeTokenizer(tiny_llama_vocabulary({"a b", "b c"})).tokenize("abc") == Tokens{"ab", "c"});
  CHECK(LlamaBpeTokenizer(tiny_llama_vocabulary({"b c", "a b"})).tokenize("abc") == Tokens{"a", "bc"});
  const LlamaBpeTokenizer pairs(tiny_llama_vocabulary({"a a", "aa a"}));
  CHECK(pairs.tokenize("aaaa") == Tokens{"aa", "aa"});
  CHECK(pairs.tokenize("aaa") == Tokens{"aaa"});
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  CHECK(tokenizer.tokenize("hello the hello") == Tokens{"hello", "Ġthe", "Ġhello"});
  CHECK(tokenizer.tokenize("hello the hello") == Tokens{"hello", "Ġthe", "Ġhello"});  // from the cache
  CHECK(tokenizer.encode_text("hello") == Ids{tokenizer.token_to_id("hello").value()});
  CHECK_THROWS_WITH(tokenizer.encode_text("ok\xFF"), Catch::Contains("tokenizer input is not valid UTF-8"));
}

TEST_CASE("Llama BPE pre-tokenizers: GPT-2's pattern, or numbers isolated first", "[llama_tokenizer]") {
  const LlamaBpeTokenizer gpt2(tiny_llama_vocabulary());
  LlamaBpeVocabulary isolating_vocabulary = tiny_llama_vocabulary();
  isolating_vocabulary.pretokenizer = LlamaPretokenizer::kGpt2IsolatedNumbers;
  const LlamaBpeTokenizer isolating(std::move(isolating_vocabulary));
  // GPT-2: "a", " ", " 12" (a space run gives its last space to the number); isolated: "a", "  ", "1", "2".
  CHECK(gpt2.tokenize("a  12") == Tokens{"a", "Ġ", "Ġ", "12"});
  CHECK(isolating.tokenize("a  12") == Tokens{"a", "ĠĠ", "1", "2"});
  CHECK(gpt2.tokenize("\n\n1") == Tokens{"Ċ", "Ċ", "1"});
  CHECK(isolating.tokenize("\n\n1") == Tokens{"ĊĊ", "1"});
  // A number character outside ASCII (², U+00B2) is isolated too; its two bytes stay one piece.
  CHECK(isolating.tokenize("12\xC2\xB2") == Tokens{"1", "2", "Â", "²"});
  CHECK(gpt2.tokenize("12\xC2\xB2") == Tokens{"12", "Â", "²"});
  CHECK(gpt2.tokenize("the  the") == Tokens{"t", "he", "Ġ", "Ġthe"});
}

TEST_CASE("Llama BPE control tokens in the text map to their ids and strip no whitespace", "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  CHECK(tokenizer.tokenize("<|im_start|>user\nhi<|im_end|>") ==
        Tokens{"<|im_start|>", "u", "s", "e", "r", "Ċ", "h", "i", "<|im_end|>"});
  CHECK(tokenizer.encode_text("a<|endoftext|><|im_end|>") == Ids{tiny_byte_id('a'), 0, 2});
  CHECK(tokenizer.encode_text(" <|im_end|> ") == Ids{tiny_byte_id(' '), 2, tiny_byte_id(' ')});
  // An unfinished control token is plain text.
  CHECK(tokenizer.tokenize("<|im_end") == Tokens{"<", "|", "i", "m", "_", "e", "n", "d"});
}

TEST_CASE("Llama BPE encodes every byte UTF-8 text can hold as its byte symbol and decodes it back",
          "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  // Every code point below U+0800 (all one- and two-byte sequences), and code points with each lead
  // byte of the three- and four-byte sequences: every byte but C0, C1 and F5–FF, which UTF-8 never holds.
  std::vector<char32_t> code_points;
  for (char32_t cp = 0; cp < 0x800; ++cp) code_points.push_back(cp);
  for (char32_t cp = 0x800; cp < 0x10000; cp += 0x1000) code_points.push_back(cp == 0xD800 ? 0xD7FF : cp);
  for (char32_t cp : {0x10000, 0x40000, 0x80000, 0xC0000, 0x100000, 0x10FFFF}) code_points.push_back(cp);
  std::set<int> bytes_seen;
  for (const char32_t cp : code_points) {
    std::string text;
    append_utf8(text, cp);
    Ids expected;
    for (const char c : text) {
      expected.push_back(tiny_byte_id(static_cast<unsigned char>(c)));
      bytes_seen.insert(static_cast<unsigned char>(c));
    }
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(tokenizer.encode_text(text) == expected);
    CHECK(tokenizer.decode(expected) == text);
  }
  CHECK(bytes_seen.size() == 256 - 2 - 11);
}

TEST_CASE("Llama BPE: bytes without a symbol become the unknown token, one per run in a piece",
          "[llama_tokenizer]") {
  // SmolLM2's vocabulary lacks the symbols of 0x04, 0x06 and others; transformers gives them its
  // unknown token (<|endoftext|>), fusing neighbours of one piece.
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary(tiny_llama_merges(), {0x04, 0x06}));
  CHECK(tokenizer.tokenize("a\x04\x06" "b") == Tokens{"a", "<|endoftext|>", "b"});
  CHECK(tokenizer.tokenize("\x04 \x06") == Tokens{"<|endoftext|>", "Ġ", "<|endoftext|>"});
  CHECK(offset_spans(tokenizer, "a\x04\x06" "b") == OffsetSpans{{0, 1}, {1, 3}, {3, 4}});
  CHECK(tokenizer.decode(tokenizer.encode_text("a\x04\x06" "b")) == "a<|endoftext|>b");
  CHECK_THROWS_WITH(
      LlamaBpeTokenizer([] {
        LlamaBpeVocabulary vocabulary = tiny_llama_vocabulary(tiny_llama_merges(), {0x04});
        vocabulary.unk_id.reset();
        return vocabulary;
      }()),
      Catch::Contains("has no token \"Ą\"") && Catch::Contains("byte 0x04") && Catch::Contains("no unknown token"));
}

TEST_CASE("Llama BPE decode joins the tokens' bytes, keeps or skips control tokens", "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  const std::string text = "H\xC3\xA9llo, w\xC3\xB6rld! \xF0\x9F\x98\x80 \xE4\xB8\xAD\xE6\x96\x87 \t\n\n  x  ";
  CHECK(tokenizer.decode(tokenizer.encode_text(text)) == text);
  const Ids framed = tokenizer.encode("hi<|im_end|>").input_ids;
  CHECK(framed.front() == 1);
  CHECK(tokenizer.decode(framed) == "<|im_start|>hi<|im_end|>");
  CHECK(tokenizer.decode(framed, /*skip_special_tokens=*/true) == "hi");
  // Ill-formed bytes become U+FFFD, one per maximal ill-formed subpart (Python's errors="replace").
  CHECK(tokenizer.decode({tiny_byte_id(0x80)}) == "\xEF\xBF\xBD");
  CHECK(tokenizer.decode({tiny_byte_id(0xF0), tiny_byte_id(0x9F), tiny_byte_id(0x98), tiny_byte_id('!')}) ==
        "\xEF\xBF\xBD!");
  CHECK_THROWS_WITH(tokenizer.decode({5, tokenizer.vocab_size()}), Catch::Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(tokenizer.decode({-1}), Catch::Contains("id -1 is outside"));
}

TEST_CASE("Llama BPE offsets: code point spans with the spaces tokens carry, whole characters",
          "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  CHECK(offset_spans(tokenizer, "hello the") == OffsetSpans{{0, 5}, {5, 9}});
  // é is two byte tokens; "Ġð" is the space and 😀's first byte, so it spans both characters, and the
  // three tokens after it span 😀.
  CHECK(tokenizer.tokenize("\xC3\xA9 \xF0\x9F\x98\x80!") == Tokens{"Ã", "©", "Ġð", "Ł", "ĺ", "Ģ", "!"});
  CHECK(offset_spans(tokenizer, "\xC3\xA9 \xF0\x9F\x98\x80!") ==
        OffsetSpans{{0, 1}, {0, 1}, {1, 3}, {2, 3}, {2, 3}, {2, 3}, {3, 4}});
  CHECK(offset_spans(tokenizer, "x<|im_end|>  y") == OffsetSpans{{0, 1}, {1, 11}, {11, 12}, {12, 13}, {13, 14}});
  CHECK(tokenizer.encode_text_with_offsets("").empty());
  for (const std::string text : {"The  quick\n\nbrown 12 \xE4\xB8\xAD\xE6\x96\x87 fox<|im_start|>!",
                                 "a\xCC\x81\xCC\x82 e\xCC\x81 \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB"}) {
    capaboost::testing::check_offset_properties(tokenizer, text, /*spans_trim_whitespace=*/false);
  }
}

TEST_CASE("Llama BPE framing: BOS and EOS where their flags are on, no token types", "[llama_tokenizer]") {
  const LlamaBpeTokenizer bos_only(tiny_llama_vocabulary());
  const int64_t h = tiny_byte_id('h'), i = tiny_byte_id('i');
  CHECK(bos_only.encode("hi").input_ids == Ids{1, h, i});
  CHECK(bos_only.encode("hi", "i").input_ids == Ids{1, h, i, 1, i});
  CHECK(bos_only.encode("hi").token_type_ids.empty());
  CHECK(bos_only.num_special_tokens(false) == 1);
  CHECK(bos_only.num_special_tokens(true) == 2);
  CHECK(bos_only.encode("hi", "i", EncodeOptions().add_special_tokens(false)).input_ids == Ids{h, i, i});
  // Truncation leaves room for the framing: 4 ids = BOS h BOS i.
  CHECK(bos_only.encode("hi", "i", EncodeOptions().truncation(true).max_length(4)).input_ids == Ids{1, h, 1, i});

  LlamaBpeVocabulary both_vocabulary = tiny_llama_vocabulary();
  both_vocabulary.add_eos = true;
  const LlamaBpeTokenizer both(std::move(both_vocabulary));
  CHECK(both.encode("hi", "i").input_ids == Ids{1, h, i, 2, 1, i, 2});
  CHECK(both.num_special_tokens(true) == 4);

  LlamaBpeVocabulary plain_vocabulary = tiny_llama_vocabulary();
  plain_vocabulary.add_bos = false;
  const LlamaBpeTokenizer plain(std::move(plain_vocabulary));
  CHECK(plain.encode("hi", "i").input_ids == Ids{h, i, i});
  CHECK(plain.num_special_tokens(true) == 0);
}

TEST_CASE("Llama BPE ids: padding, special ids, no mask token", "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  CHECK(tokenizer.pad_id() == 2);
  CHECK(tokenizer.special_ids() == Ids{0, 1, 2});
  CHECK(tokenizer.vocab_size() == 3 + 256 + static_cast<int64_t>(tiny_llama_merges().size()));
  CHECK_THROWS_WITH(tokenizer.mask_id(), Catch::Contains("no mask token") && Catch::Contains("causal language model"));
  const auto batch = tokenizer.encode_batch({"hello", "hi"});  // BOS hello, BOS h i
  CHECK(batch.input_ids[0][2].item<int64_t>() == 2);              // padded with the padding id
  CHECK(batch.attention_mask[0][2].item<int64_t>() == 0);

  LlamaBpeVocabulary unpadded = tiny_llama_vocabulary();
  unpadded.pad_id.reset();
  CHECK_THROWS_WITH(LlamaBpeTokenizer(std::move(unpadded)).pad_id(),
                    Catch::Contains("names no padding token") && Catch::Contains("LlamaBpeVocabulary::pad_id"));
}

TEST_CASE("Llama BPE refuses inconsistent vocabulary data, naming the field", "[llama_tokenizer]") {
  const auto refused = [](auto&& edit) {
    LlamaBpeVocabulary vocabulary = tiny_llama_vocabulary();
    edit(vocabulary);
    return [vocabulary]() mutable { LlamaBpeTokenizer tokenizer(std::move(vocabulary)); };
  };
  CHECK_THROWS_WITH(refused([](auto& v) { v.merges.push_back("x zebra"); })(),
                    Catch::Contains("LlamaBpeVocabulary::merges[11]") && Catch::Contains("\"zebra\" is not a token"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.merges.push_back("a b"); })(),
                    Catch::Contains("merges[11]") && Catch::Contains("\"ab\" is not a token"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.merges.push_back("ab"); })(),
                    Catch::Contains("merges[11] is \"ab\"") && Catch::Contains("\"left right\""));
  CHECK_THROWS_WITH(refused([](auto& v) { v.merges.push_back("a b c"); })(),
                    Catch::Contains("merges[11] is \"a b c\""));
  CHECK_THROWS_WITH(refused([](auto& v) { v.bos_id = 100000; })(),
                    Catch::Contains("LlamaBpeVocabulary::bos_id 100000 is outside the vocabulary"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.unk_id = -1; })(), Catch::Contains("unk_id -1 is outside"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.pad_id = v.tokens.size(); })(), Catch::Contains("pad_id"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.token_types.pop_back(); })(),
                    Catch::Contains("token types for") && Catch::Contains("one per token"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.token_types[5] = 9; })(),
                    Catch::Contains("token_types[5]") && Catch::Contains("not a GGUF token type"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.tokens[200] = "hello"; })(),
                    Catch::Contains("token \"hello\" twice"));
  CHECK_THROWS_WITH(refused([](auto& v) {
                      v.tokens.push_back("<0x41>");
                      v.token_types.push_back(6);
                    })(),
                    Catch::Contains("tokens[") && Catch::Contains("byte fallback"));
  CHECK_THROWS_WITH(refused([](auto& v) { v.bos_id.reset(); })(), Catch::Contains("add_bos is set but bos_id"));
}

TEST_CASE("Llama BPE encodes concurrently to the serial result", "[llama_tokenizer]") {
  const LlamaBpeTokenizer tokenizer(tiny_llama_vocabulary());
  std::vector<std::string> texts;
  for (int k = 0; k < 200; ++k) {
    texts.push_back("hello the " + std::to_string(k) + " <|im_end|>\xC3\xA9 hello" + std::string(k % 7, ' '));
  }
  std::vector<Ids> serial;
  for (const auto& text : texts) serial.push_back(tokenizer.encode_text(text));
  std::vector<std::vector<Ids>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      for (const auto& text : texts) results[t].push_back(tokenizer.encode_text(text));
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) CHECK(result == serial);
}
