// BERT's WordPiece tokenizer on a tiny hand-made vocabulary: what tokenizers 0.21.0's BertTokenizerFast
// does to accents, case, CJK, punctuation, control characters, special tokens written in the text,
// "##" pieces, words over 100 characters, spans, pairs, truncation and decode. The real checkpoint is
// compared with the real library in tokenizer_parity_live_test.cpp.

#include "tokenizers/wordpiece_tokenizer.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/tokenizers/offset_properties.h"
#include "lib/tokenizers/tiny_wordpiece_dir.h"
#include "tokenizers/tokenizer_loader.h"

using namespace capaboost;
using capaboost::testing::TinyWordPieceDir;
using Tokens = std::vector<std::string>;
using Ids = std::vector<int64_t>;

namespace {

using Spans = std::vector<std::pair<int64_t, int64_t>>;

Spans spans(const Tokenizer& tokenizer, const std::string& text) {
  Spans out;
  for (const auto& token : tokenizer.encode_text_with_offsets(text)) out.emplace_back(token.begin, token.end);
  return out;
}

// A tokenizer.json as BertTokenizerFast writes it, over the tiny vocabulary.
nlohmann::json tokenizer_json() {
  nlohmann::json vocab = nlohmann::json::object();
  const auto& tokens = capaboost::testing::tiny_wordpiece_tokens();
  for (std::size_t id = 0; id < tokens.size(); ++id) vocab[tokens[id]] = id;
  nlohmann::json added = nlohmann::json::array();
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    added.push_back({{"content", special}, {"special", true}, {"normalized", false}, {"lstrip", false},
                     {"rstrip", false}, {"single_word", false}});
  }
  return {{"added_tokens", added},
          {"normalizer",
           {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
            {"strip_accents", nullptr}, {"lowercase", true}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"model",
           {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
            {"max_input_chars_per_word", 100}, {"vocab", vocab}}},
          {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}}};
}

}  // namespace

TEST_CASE("WordPiece spells each word greedily, longest piece first, with ## continuations", "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("unaffable") == Tokens{"un", "##aff", "##able"});
  CHECK(spans(tokenizer, "unaffable") == Spans{{0, 2}, {2, 5}, {5, 9}});
  CHECK(tokenizer.tokenize("The quick  brown fox") == Tokens{"the", "quick", "brown", "fox"});
  CHECK(spans(tokenizer, "The quick  brown fox") == Spans{{0, 3}, {4, 9}, {11, 16}, {17, 20}});
  CHECK(tokenizer.tokenize("aaa") == Tokens{"a", "##a", "##a"});
  // No spelling of the rest ("##x" is no token): the whole word is [UNK], spanning the word.
  CHECK(tokenizer.tokenize("the unaffablex fox") == Tokens{"the", "[UNK]", "fox"});
  CHECK(spans(tokenizer, "the unaffablex fox") == Spans{{0, 3}, {4, 14}, {15, 18}});
  CHECK(tokenizer.encode_text("the fox") == Ids{dir.id("the"), dir.id("fox")});
  CHECK(tokenizer.encode_text("").empty());
  CHECK(tokenizer.encode_text(" \t\n").empty());
}

TEST_CASE("WordPiece turns a word of more than 100 characters into one [UNK]", "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  const auto hundred = tokenizer.tokenize(std::string(100, 'a'));
  REQUIRE(hundred.size() == 100);
  CHECK(hundred.front() == "a");
  CHECK(hundred.back() == "##a");
  CHECK(tokenizer.tokenize("the " + std::string(101, 'a') + " fox") == Tokens{"the", "[UNK]", "fox"});
  CHECK(spans(tokenizer, "the " + std::string(101, 'A') + " fox") == Spans{{0, 3}, {4, 105}, {106, 109}});
  // Normalized characters count: "é" written decomposed is two characters in, one "e" after NFD.
  std::string decomposed;
  for (int i = 0; i < 60; ++i) decomposed += "a\xCC\x81";  // a + U+0301
  CHECK(tokenizer.tokenize(decomposed).size() == 60);
  // The stripped accent is no character of the normalized text, so no span ends on it.
  CHECK(spans(tokenizer, decomposed).back() == std::pair<int64_t, int64_t>{118, 119});
}

TEST_CASE("WordPiece strips accents after NFD and lowercases, spans covering the input characters",
          "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("Café CAFÉ") == Tokens{"cafe", "cafe"});
  CHECK(spans(tokenizer, "Café CAFÉ") == Spans{{0, 4}, {5, 9}});
  // Decomposed input: the stripped accent is in no span (the fast tokenizer's offsets); inside a word
  // it still lies between the span's ends.
  CHECK(tokenizer.tokenize("Cafe\xCC\x81!") == Tokens{"cafe", "!"});
  CHECK(spans(tokenizer, "Cafe\xCC\x81!") == Spans{{0, 4}, {5, 6}});
  CHECK(spans(tokenizer, "Ca\xCC\x81" "fe") == Spans{{0, 5}});
  // U+0130 decomposes to "I" + U+0307, whose dot is stripped before lowercasing.
  CHECK(tokenizer.tokenize("\xC4\xB0") == Tokens{"i"});

  // Without stripping, U+0130 lowercases to "i" + U+0307: two pieces of one input character, both
  // spanning it.
  dir.write("tokenizer_config.json", R"({"strip_accents": false})");
  const WordPieceTokenizer unstripped(dir.path());
  CHECK(unstripped.tokenize("\xC4\xB0") == Tokens{"i", "##\xCC\x87"});
  CHECK(spans(unstripped, "\xC4\xB0") == Spans{{0, 1}, {0, 1}});

  dir.write("tokenizer_config.json", R"({"do_lower_case": false})");  // strip_accents null follows it
  const WordPieceTokenizer cased(dir.path());
  CHECK(cased.tokenize("Café") == Tokens{"Café"});
  CHECK(cased.tokenize("café") == Tokens{"caf", "##é"});
  dir.write("tokenizer_config.json", R"({"do_lower_case": false, "strip_accents": true})");
  CHECK(WordPieceTokenizer(dir.path()).tokenize("café") == Tokens{"cafe"});
}

TEST_CASE("WordPiece isolates CJK ideographs and punctuation and drops whitespace and control characters",
          "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("the中文fox") == Tokens{"the", "中", "文", "fox"});
  CHECK(spans(tokenizer, "the中文fox") == Spans{{0, 3}, {3, 4}, {4, 5}, {5, 8}});
  CHECK(tokenizer.tokenize("Don't!?") == Tokens{"don", "'", "t", "!", "?"});
  CHECK(spans(tokenizer, "Don't!?") == Spans{{0, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}});
  CHECK(tokenizer.tokenize("the\tfox\r\n") == Tokens{"the", "fox"});
  // Format characters (soft hyphen, zero-width space), U+0000 and U+FFFD vanish; the span of a word
  // still runs from its first character to its last.
  CHECK(tokenizer.tokenize("fo\xC2\xADx") == Tokens{"fox"});
  CHECK(spans(tokenizer, "fo\xC2\xADx") == Spans{{0, 4}});
  CHECK(spans(tokenizer, "\xE2\x80\x8B" "the") == Spans{{1, 4}});
  CHECK(tokenizer.tokenize(std::string("fox\0\xEF\xBF\xBD", 7)) == Tokens{"fox"});
  // An unassigned code point (U+0378) is no control character to tokenizers: it stays, and the word
  // cannot be spelled.
  CHECK(tokenizer.tokenize("the\xCD\xB8") == Tokens{"[UNK]"});
  // U+3000 (ideographic space) and U+00A0 are whitespace.
  CHECK(tokenizer.tokenize("the\xE3\x80\x80" "fox\xC2\xA0!") == Tokens{"the", "fox", "!"});
}

TEST_CASE("WordPiece matches special tokens written in the text verbatim, before normalization",
          "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  CHECK(tokenizer.tokenize("the [MASK] fox[SEP]") == Tokens{"the", "[MASK]", "fox", "[SEP]"});
  CHECK(spans(tokenizer, "the [MASK] fox[SEP]") == Spans{{0, 3}, {4, 10}, {11, 14}, {14, 19}});
  CHECK(tokenizer.encode_text("[CLS][PAD][UNK]") == Ids{2, 0, 1});
  // Lowercase, they are ordinary text: "[", a word, "]".
  CHECK(tokenizer.tokenize("[mask]") == Tokens{"[", "mask", "]"});
  CHECK(tokenizer.tokenize("[cls]") == Tokens{"[", "cl", "##s", "]"});
  // Spans of the segments between special tokens count from the start of the text.
  CHECK(spans(tokenizer, "Café[SEP]Café") == Spans{{0, 4}, {4, 9}, {9, 13}});
}

TEST_CASE("WordPiece frames [CLS] a [SEP] b [SEP] with token types, and truncates pairs longest first",
          "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  CHECK(tokenizer.num_special_tokens(false) == 2);
  CHECK(tokenizer.num_special_tokens(true) == 3);
  const Encoding single = tokenizer.encode("the fox");
  CHECK(single.input_ids == Ids{2, 5, 8, 3});
  CHECK(single.token_type_ids == Ids{0, 0, 0, 0});
  CHECK(single.attention_mask == Ids{1, 1, 1, 1});
  const Encoding pair = tokenizer.encode("the fox", std::string_view("quick brown"));
  CHECK(pair.input_ids == Ids{2, 5, 8, 3, 6, 7, 3});
  CHECK(pair.token_type_ids == Ids{0, 0, 0, 0, 1, 1, 1});
  // 4 + 2 ids and 3 framing ids into 7: the longer text loses one id at a time.
  const Encoding cut = tokenizer.encode("the quick brown fox", std::string_view("hello world"),
                                        EncodeOptions().truncation(true).max_length(7));
  CHECK(cut.input_ids == Ids{2, 5, 6, 3, dir.id("hello"), dir.id("world"), 3});
  CHECK(cut.token_type_ids == Ids{0, 0, 0, 0, 1, 1, 1});
  const BatchEncoding batch = tokenizer.encode_batch({"the fox", "fox"}, {"quick", "the quick brown"});
  REQUIRE(batch.token_type_ids.defined());
  CHECK(batch.input_ids[1][6].item<int64_t>() == 3);
  CHECK(batch.token_type_ids[0][4].item<int64_t>() == 1);
  CHECK(batch.token_type_ids[0][6].item<int64_t>() == 0);  // padding
  CHECK(batch.input_ids[0][6].item<int64_t>() == tokenizer.pad_id());
  CHECK(tokenizer.mask_id() == 4);
  CHECK(tokenizer.vocab_size() == static_cast<int64_t>(capaboost::testing::tiny_wordpiece_tokens().size()));
  CHECK(tokenizer.special_ids() == Ids{0, 1, 2, 3, 4});
}

TEST_CASE("WordPiece decode is tokenizers' WordPiece decoder with its clean-up", "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  const Ids ids = tokenizer.encode("Unaffable, the fox.").input_ids;
  CHECK(tokenizer.decode(ids) == "[CLS] unaffable, the fox. [SEP]");
  CHECK(tokenizer.decode(ids, true) == "unaffable, the fox.");
  // " ' " is tightened only within one token, so separate tokens keep their spaces.
  CHECK(tokenizer.decode(tokenizer.encode_text("don't?")) == "don ' t?");
  // The first token keeps its "##", also when it is first only because special tokens were skipped.
  CHECK(tokenizer.decode({dir.id("##a"), dir.id("the")}) == "##a the");
  CHECK(tokenizer.decode({2, dir.id("##a"), dir.id("a")}, true) == "##a a");
  CHECK(tokenizer.decode({}).empty());
  CHECK_THROWS_WITH(tokenizer.decode({999}), Catch::Contains("outside the vocabulary") && Catch::Contains("vocab.txt"));

  auto json = tokenizer_json();
  json["decoder"]["cleanup"] = false;
  dir.write("tokenizer.json", json.dump());
  CHECK(WordPieceTokenizer(dir.path()).decode(ids, true) == "unaffable , the fox .");
}

TEST_CASE("WordPiece options come from tokenizer.json and tokenizer_config.json as BertTokenizerFast reads them",
          "[wordpiece]") {
  TinyWordPieceDir dir;
  auto json = tokenizer_json();
  json["normalizer"]["lowercase"] = false;
  json["model"]["max_input_chars_per_word"] = 4;
  dir.write("tokenizer.json", json.dump());
  // Without tokenizer_config.json BertTokenizerFast's default do_lower_case=true wins over the file.
  const WordPieceTokenizer defaulted(dir.path());
  CHECK(defaulted.options.normalizer().lowercase());
  CHECK(defaulted.tokenize("Café quick") == Tokens{"cafe", "[UNK]"});  // "quick" is over 4 characters
  dir.write("tokenizer_config.json", R"({"do_lower_case": false, "tokenize_chinese_chars": false})");
  const WordPieceTokenizer configured(dir.path());
  CHECK_FALSE(configured.options.normalizer().lowercase());
  CHECK_FALSE(configured.options.normalizer().handle_chinese_chars());
  CHECK(configured.tokenize("Café 中") == Tokens{"Café", "中"});
  CHECK(configured.tokenize("the中") == Tokens{"[UNK]"});

  // Explicit options need only vocab.txt.
  const WordPieceTokenizer given(dir.path(), WordPieceOptions().max_input_chars_per_word(2));
  CHECK(given.tokenize("the un") == Tokens{"[UNK]", "un"});
}

TEST_CASE("WordPiece files: line ends, the loader, and errors that name the file and the fix", "[wordpiece]") {
  TinyWordPieceDir dir;
  {
    std::string crlf;
    for (const auto& token : capaboost::testing::tiny_wordpiece_tokens()) crlf += token + "\r\n";
    dir.write("vocab.txt", crlf);
    const auto loaded = load_tokenizer(dir.path());
    REQUIRE(dynamic_cast<const WordPieceTokenizer*>(loaded.get()) != nullptr);
    CHECK(loaded->encode_text("the fox") == Ids{dir.id("the"), dir.id("fox")});
    CHECK(loaded->first_segment_length(5) == 7);
  }
  auto json = tokenizer_json();
  json["model"]["type"] = "BPE";
  dir.write("tokenizer.json", json.dump());
  CHECK_THROWS_WITH(WordPieceTokenizer(dir.path()), Catch::Contains("tokenizer.json") && Catch::Contains("WordPiece"));
  json = tokenizer_json();
  json["model"]["vocab"]["the"] = 6;
  dir.write("tokenizer.json", json.dump());
  CHECK_THROWS_WITH(WordPieceTokenizer(dir.path()), Catch::Contains("do not belong together"));
  json = tokenizer_json();
  json["added_tokens"].push_back({{"content", "<extra>"}, {"special", false}, {"normalized", true}});
  dir.write("tokenizer.json", json.dump());
  CHECK_THROWS_WITH(WordPieceTokenizer(dir.path()), Catch::Contains("<extra>") && Catch::Contains("not supported"));
  dir.write("tokenizer.json", "{not json");
  CHECK_THROWS_WITH(WordPieceTokenizer(dir.path()), Catch::Contains("tokenizer.json is not valid JSON"));
  dir.write("tokenizer.json", tokenizer_json().dump());
  CHECK_NOTHROW(WordPieceTokenizer(dir.path()));

  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n");
  CHECK_THROWS_WITH(WordPieceTokenizer(dir.path(), WordPieceOptions()),
                    Catch::Contains("vocab.txt has no token \"[MASK]\""));
  capaboost::testing::TempDir empty;
  CHECK_THROWS_WITH(WordPieceTokenizer(empty.path().string()), Catch::Contains("vocab.txt"));
}

TEST_CASE("WordPiece spans satisfy the offset properties on varied text", "[wordpiece]") {
  TinyWordPieceDir dir;
  const WordPieceTokenizer tokenizer(dir.path());
  // Not a stripped accent at the end of a word: like the fast tokenizer's, no span holds it (above).
  for (const std::string& text : std::vector<std::string>{"The quick brown fox!", "  Café, CAFÉ and ca\xCC\x81" "fe  ", "the中文fox?",
                                 "un[MASK]affable [SEP] don't", "\xC4\xB0stanbul 😀 naïve", std::string(120, 'a')}) {
    capaboost::testing::check_offset_properties(tokenizer, text, true);
  }
}
