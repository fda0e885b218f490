// BERT's normaliser and pre-tokenizer step by step, with the input character each normalized character
// came from.

#include "tokenizers/bert_normalizer.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tokenizers/utf8.h"

using namespace capaboost;

namespace {

// As UTF-8, so Catch can show it.
std::string text_of(const std::vector<NormalizedChar>& chars) {
  std::string out;
  for (const auto& c : chars) append_utf8(out, c.cp);
  return out;
}

std::vector<int64_t> sources(const std::vector<NormalizedChar>& chars) {
  std::vector<int64_t> out;
  for (const auto& c : chars) out.push_back(c.source);
  return out;
}

const BertNormalizerOptions kNothing =
    BertNormalizerOptions().clean_text(false).handle_chinese_chars(false).strip_accents(false).lowercase(false);

}  // namespace

TEST_CASE("BertNormalizer cleans, pads ideographs, strips accents and lowercases, keeping sources", "[wordpiece]") {
  // clean_text: U+0000, U+FFFD and Cc/Cf/Co go; whitespace (tab, NBSP) becomes ' '.
  const auto cleaned = bert_normalize("a\tb\xC2\xA0" "c\x01\xE2\x80\x8B\xEF\xBF\xBD\xEE\x80\x80" "d",
                                      BertNormalizerOptions(kNothing).clean_text(true));
  CHECK(text_of(cleaned) == u8"a b cd");
  CHECK(sources(cleaned) == std::vector<int64_t>{0, 1, 2, 3, 4, 9});
  // handle_chinese_chars: the spaces stand for the ideograph too.
  const auto padded = bert_normalize("x中", BertNormalizerOptions(kNothing).handle_chinese_chars(true));
  CHECK(text_of(padded) == u8"x 中 ");
  CHECK(sources(padded) == std::vector<int64_t>{0, 1, 1, 1});
  // strip_accents: NFD, then Mn goes; the base letter keeps the source of the composed character.
  const auto stripped = bert_normalize("Ç\xC3\xA9" "e\xCC\x81", BertNormalizerOptions(kNothing).strip_accents(true));
  CHECK(text_of(stripped) == u8"Cee");
  CHECK(sources(stripped) == std::vector<int64_t>{0, 1, 2});
  // lowercase may expand; both characters come from the one input character.
  const auto lowered = bert_normalize("A\xC4\xB0", BertNormalizerOptions(kNothing).lowercase(true));
  CHECK(text_of(lowered) == u8"ai\u0307");
  CHECK(sources(lowered) == std::vector<int64_t>{0, 1, 1});
  // strip_accents unset follows lowercase, and stripping runs before lowercasing.
  CHECK(text_of(bert_normalize("\xC4\xB0", BertNormalizerOptions())) == u8"i");
  CHECK(text_of(bert_normalize("\xC4\xB0", BertNormalizerOptions().strip_accents(false))) == u8"i\u0307");
  CHECK(text_of(bert_normalize("\xC3\x89", BertNormalizerOptions().lowercase(false))) == u8"\u00C9");
  CHECK(bert_normalize("", BertNormalizerOptions()).empty());
}

TEST_CASE("BertPreTokenizer splits on whitespace and around each punctuation character", "[wordpiece]") {
  const auto chars = bert_normalize("Hi,  you!!x-y", kNothing);
  std::vector<std::string> words;
  for (const auto& word : bert_pre_tokenize(chars)) {
    words.push_back(text_of({chars.begin() + static_cast<std::ptrdiff_t>(word.begin),
                             chars.begin() + static_cast<std::ptrdiff_t>(word.end)}));
  }
  CHECK(words == std::vector<std::string>{"Hi", ",", "you", "!", "!", "x", "-", "y"});
  // ASCII symbols count as punctuation ('$', '+', '`'), other symbols do not ('€').
  CHECK(bert_pre_tokenize(bert_normalize("1$+`2€3", kNothing)).size() == 5);
  CHECK(bert_pre_tokenize(bert_normalize(" \t\n ", kNothing)).empty());
}

TEST_CASE("BERT's CJK ranges are tokenizers' (U+2B820..U+2B91F excluded)", "[wordpiece]") {
  for (char32_t cp : {0x4E00, 0x9FFF, 0x3400, 0x4DBF, 0x20000, 0x2A6DF, 0x2A700, 0x2B81F, 0x2B920, 0x2CEAF, 0xF900,
                      0xFAFF, 0x2F800, 0x2FA1F}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK(is_bert_chinese_char(cp));
  }
  for (char32_t cp : {0x4DFF, 0xA000, 0x2B820, 0x2B91F, 0x3042 /*hiragana*/, 0xAC00 /*hangul*/, 0x2FA20}) {
    INFO("U+" << std::hex << static_cast<uint32_t>(cp));
    CHECK_FALSE(is_bert_chinese_char(cp));
  }
}
