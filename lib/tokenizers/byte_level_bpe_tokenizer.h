#pragma once
// Byte-level BPE with RoBERTa's special tokens, matching Hugging Face transformers 4.30.2's slow
// RobertaTokenizer loaded with from_pretrained(<dir with vocab.json, merges.txt>):
//  1. <s> <pad> </s> <unk> <mask> occurring in the text are split out first and map to their ids;
//     <mask> strips the whitespace before it (AddedToken lstrip=True), the others strip nothing.
//  2. The other segments are pre-tokenized with the GPT-2 pattern (gpt2_pretokenizer.h), each piece's
//     UTF-8 bytes become byte-level symbols (byte_unicode.h), and merges apply by rank
//     (byte_level_bpe_model.h, shared with the Llama family's tokenizer).
//  3. Framing: <s> A </s> and <s> A </s></s> B </s>.
// Decode concatenates the tokens' bytes and reads them as UTF-8, replacing ill-formed bytes with U+FFFD
// (HF errors="replace"), without clean-up of tokenization spaces.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/byte_level_bpe_model.h"
#include "tokenizers/special_token_splitter.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

struct ByteLevelBpeOptions {
  /// Prepend a space to text that does not start with whitespace, so the first word is encoded like
  /// every other ("Ġhello"), as HF add_prefix_space=True.
  TORCH_ARG(bool, add_prefix_space) = false;
};

/// Thread-safe for concurrent encodes; not copyable (it owns its BPE cache), so hold it by reference or
/// pointer.
class ByteLevelBpeTokenizer : public Tokenizer {
 public:
  /// Loads `directory`/vocab.json and `directory`/merges.txt. The vocabulary must hold the 256 byte
  /// symbols, the five special tokens and the result of every merge (true of GPT-2/RoBERTa files), so
  /// every id decodes and every text round-trips.
  explicit ByteLevelBpeTokenizer(const std::string& directory, const ByteLevelBpeOptions& options = {});

  /// Byte-level token strings of `text` (HF tokenize), e.g. "Hello world" -> {"Hello", "Ġworld"}.
  std::vector<std::string> tokenize(std::string_view text) const;

  std::vector<int64_t> encode_text(std::string_view text) const override;
  /// Every token stands for bytes of the text in order, so spans come from walking them: a token that
  /// cuts a multi-byte character spans the whole character; leading and trailing spaces ("Ġ") are
  /// trimmed off, except the space add_prefix_space adds before the first token, which maps to
  /// character 0 (Hugging Face's ByteLevel post-processor with trim_offsets).
  std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const override;
  std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                          const std::optional<std::vector<int64_t>>& b) const override;
  int64_t num_special_tokens(bool pair) const override { return roberta_framing_size(pair); }
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
  int64_t pad_id() const override { return pad_id_; }
  int64_t vocab_size() const override { return bpe_.size(); }

  int64_t bos_id() const { return bos_id_; }
  int64_t eos_id() const { return eos_id_; }
  int64_t unk_id() const { return unk_id_; }
  int64_t mask_id() const override { return mask_id_; }
  std::vector<int64_t> special_ids() const override { return {bos_id_, pad_id_, eos_id_, unk_id_, mask_id_}; }
  /// Id of a vocabulary token; TORCH_CHECK-fails for tokens not in vocab.json.
  int64_t token_to_id(const std::string& token) const;
  /// Vocabulary token of `id`; TORCH_CHECK-fails outside [0, vocab_size()).
  const std::string& id_to_token(int64_t id) const;

  const ByteLevelBpeOptions options;

 private:
  int64_t required_id(const std::string& token, const std::string& why) const;

  std::string directory_;
  ByteLevelBpeModel bpe_;
  int64_t bos_id_, pad_id_, eos_id_, unk_id_, mask_id_;
  SpecialTokenSplitter specials_;
};

}  // namespace capaboost
