#pragma once
// BERT's WordPiece tokenizer, exact to Hugging Face's fast BertTokenizerFast (tokenizers 0.21.0,
// transformers 4.47.1) loaded with from_pretrained(<dir with vocab.txt>):
//  1. The special tokens ([CLS] [SEP] [PAD] [UNK] [MASK], or the names tokenizer_config.json gives)
//     written in the text are split out first, verbatim (before normalization, so "[cls]" is not one),
//     leftmost then longest, and map to their ids.
//  2. The other segments go through BERT's normaliser and pre-tokenizer (bert_normalizer.h).
//  3. Each word becomes the longest vocabulary token that starts it, then the longest "##" token that
//     continues it, and so on (greedy longest-match-first); a word with no such spelling, or longer than
//     max_input_chars_per_word (100) normalized characters, becomes [UNK] whole.
//  4. Framing: [CLS] A [SEP] and [CLS] A [SEP] B [SEP]; token types 0 up to the first [SEP], 1 after.
// Decode is tokenizers' WordPiece decoder: tokens joined by spaces, "##" pieces glued to the one before,
// and, with its clean-up (on in BERT checkpoints), " ." " ?" " !" " ," and a few contractions tightened
// inside each token — which the fast tokenizer does whatever clean_up_tokenization_spaces says.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizers/special_token_splitter.h"
#include "tokenizers/tokenizer.h"
#include "tokenizers/wordpiece_files.h"

namespace capaboost {

/// Immutable after loading, so thread-safe for concurrent encodes and decodes.
class WordPieceTokenizer : public Tokenizer {
 public:
  static constexpr const char* kVocabFile = "vocab.txt";

  /// Loads `directory`/vocab.txt with the options its tokenizer.json and tokenizer_config.json give
  /// (read_wordpiece_files).
  explicit WordPieceTokenizer(const std::string& directory);
  /// Loads `directory`/vocab.txt with the given options. The special tokens and unk_token must be in it.
  WordPieceTokenizer(const std::string& directory, const WordPieceOptions& options);

  /// Token strings of `text` (HF tokenize), e.g. "Unaffable!" -> {"una", "##ffa", "##ble", "!"}.
  std::vector<std::string> tokenize(std::string_view text) const;

  std::vector<int64_t> encode_text(std::string_view text) const override;
  /// Spans in code points of `text`, as the fast tokenizer's offset_mapping: a token spans the input
  /// characters its first and last normalized characters came from ("Café" → "cafe" spans all four,
  /// "##é"-like pieces of one expanded character span that character), a special token written in the
  /// text spans its text, and an [UNK] word spans the whole word.
  std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const override;
  std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                          const std::optional<std::vector<int64_t>>& b) const override;
  int64_t num_special_tokens(bool pair) const override { return pair ? 3 : 2; }
  /// [CLS] a [SEP] is type 0.
  std::optional<int64_t> first_segment_length(int64_t first_length) const override { return first_length + 2; }
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
  int64_t pad_id() const override { return pad_id_; }
  int64_t mask_id() const override { return mask_id_; }
  std::vector<int64_t> special_ids() const override { return {pad_id_, unk_id_, cls_id_, sep_id_, mask_id_}; }
  /// Lines of vocab.txt.
  int64_t vocab_size() const override { return static_cast<int64_t>(tokens_.size()); }

  int64_t cls_id() const { return cls_id_; }
  int64_t sep_id() const { return sep_id_; }
  int64_t unk_id() const { return unk_id_; }
  /// Id of a vocabulary token; TORCH_CHECK-fails for tokens not in vocab.txt.
  int64_t token_to_id(const std::string& token) const;
  /// Vocabulary token of `id`; TORCH_CHECK-fails outside [0, vocab_size()).
  const std::string& id_to_token(int64_t id) const;

  const WordPieceOptions options;

 private:
  WordPieceTokenizer(std::string directory, WordPieceFiles files);

  void append_segment(std::string_view segment, int64_t first_char, std::vector<TokenOffsets>& tokens) const;
  bool is_special(int64_t id) const;

  std::string directory_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> ids_;
  std::size_t max_token_chars_ = 0;  // the longest token in code points: no longer piece can match
  SpecialTokenSplitter specials_;
  int64_t pad_id_ = 0, unk_id_ = 0, cls_id_ = 0, sep_id_ = 0, mask_id_ = 0;
};

}  // namespace capaboost
