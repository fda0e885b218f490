#pragma once
// What a BERT tokenizer directory in the Hugging Face layout says: vocab.txt (one token per line, the
// id is the line's index) and the options transformers 4.47.1's BertTokenizerFast.from_pretrained takes
// from tokenizer.json (normaliser, WordPiece model, decoder) and tokenizer_config.json (do_lower_case,
// strip_accents, tokenize_chinese_chars, the special tokens). Both JSON files are optional.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizers/bert_normalizer.h"

namespace capaboost {

struct WordPieceOptions {
  TORCH_ARG(BertNormalizerOptions, normalizer) = {};
  /// The token of a word WordPiece cannot spell, and of a word longer than max_input_chars_per_word.
  TORCH_ARG(std::string, unk_token) = "[UNK]";
  /// Marks a piece that continues a word ("##ing").
  TORCH_ARG(std::string, continuing_subword_prefix) = "##";
  /// Longer words (in normalized characters) become unk_token whole.
  TORCH_ARG(int64_t, max_input_chars_per_word) = 100;
  TORCH_ARG(std::string, cls_token) = "[CLS]";
  TORCH_ARG(std::string, sep_token) = "[SEP]";
  TORCH_ARG(std::string, pad_token) = "[PAD]";
  TORCH_ARG(std::string, mask_token) = "[MASK]";
  /// The WordPiece decoder's clean-up: " ." → "." and the like, applied to each decoded token (tokenizers
  /// does this whatever transformers' clean_up_tokenization_spaces says).
  TORCH_ARG(bool, decode_cleanup) = true;
};

struct WordPieceFiles {
  std::vector<std::string> tokens;  ///< vocab.txt's lines; the id of a token is its index
  WordPieceOptions options;
};

/// The tokens of `directory`/vocab.txt: its lines as Python's text-mode readlines() splits them ("\n",
/// "\r\n" or "\r"), without the line ends.
std::vector<std::string> read_wordpiece_vocab(const std::string& directory);

/// Reads `directory`/vocab.txt and the options, as BertTokenizerFast.from_pretrained(directory) ends up
/// with them: tokenizer.json's normaliser, model and decoder where it exists (defaults otherwise), then
/// tokenizer_config.json's do_lower_case / strip_accents / tokenize_chinese_chars, or their defaults
/// true / null / true when it does not say, override the normaliser's lowercase / strip_accents /
/// handle_chinese_chars (as transformers does, even against tokenizer.json). Errors name the file and
/// the fix: a missing or unreadable vocab.txt, malformed JSON, a tokenizer.json that is not BERT's
/// (BertNormalizer, BertPreTokenizer, WordPiece) or whose vocabulary or added tokens differ from what
/// this reader supports (vocab.txt's tokens; the special tokens matched verbatim).
WordPieceFiles read_wordpiece_files(const std::string& directory);

}  // namespace capaboost
