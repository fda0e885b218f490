#pragma once
// BERT's text-to-words stage as Hugging Face tokenizers 0.21.0 runs it for BertTokenizerFast: the
// BertNormalizer (clean the text, pad CJK ideographs with spaces, strip accents, lowercase) and the
// BertPreTokenizer (split on whitespace, which is dropped, and around each punctuation character).
// Every normalized character remembers the character of the input it came from, so tokens map back to
// spans of the original text exactly as the fast tokenizer's offset_mapping does.
//
// Character classes follow that library's own tables (unicode_class.h); where Python's Unicode 14 and
// the library's older tables disagree, the library wins (generate_unicode_tables.py lists each case).

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace capaboost {

/// BertNormalizer's four steps, applied in this order, with tokenizer.json's names.
struct BertNormalizerOptions {
  /// Drop U+0000, U+FFFD and control characters (is_bert_control); whitespace becomes ' '.
  TORCH_ARG(bool, clean_text) = true;
  /// Put a space before and after every CJK ideograph (is_bert_chinese_char), so each is its own word.
  TORCH_ARG(bool, handle_chinese_chars) = true;
  /// NFD, then drop non-spacing marks ("é" → "e"); nullopt follows lowercase (strip_accents: null).
  TORCH_ARG(std::optional<bool>, strip_accents) = std::nullopt;
  /// Full Unicode lowercase of each character (may expand: "İ" → "i̇").
  TORCH_ARG(bool, lowercase) = true;
};

/// One character of normalized text and the input character it stands for.
struct NormalizedChar {
  char32_t cp;
  int64_t source;  ///< index of the input code point it came from (Python string indexing)
};

/// BertNormalizer over well-formed UTF-8 `text`. Characters that a step inserts or expands into (the
/// spaces around an ideograph, NFD's marks, a lowercase expansion) have the source of the character
/// they came from.
std::vector<NormalizedChar> bert_normalize(std::string_view text, const BertNormalizerOptions& options);

/// A word of the pre-tokenized text: normalized characters [begin, end).
struct BertWord {
  std::size_t begin;
  std::size_t end;
};

/// BertPreTokenizer: maximal runs of characters that are neither whitespace (White_Space, dropped) nor
/// punctuation (is_bert_punctuation, each one a word of its own).
std::vector<BertWord> bert_pre_tokenize(const std::vector<NormalizedChar>& chars);

/// The CJK ideograph blocks BertNormalizer pads: U+4E00–9FFF, 3400–4DBF, 20000–2A6DF, 2A700–2B81F,
/// 2B920–2CEAF, F900–FAFF, 2F800–2FA1F (tokenizers' ranges: U+2B820–2B91F is not among them, unlike in
/// transformers' slow BertTokenizer).
bool is_bert_chinese_char(char32_t cp);

}  // namespace capaboost
