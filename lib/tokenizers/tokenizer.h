#pragma once
// The interface every text tokenizer of the suite implements (byte-level BPE for RoBERTa now,
// SentencePiece for DeBERTaV3 later). An implementation supplies the model-specific parts (text to
// ids, special-token framing, decode); truncation, masks and batch padding are shared here and follow
// Hugging Face transformers 4.30.2's slow tokenizers (PreTrainedTokenizerBase).

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

/// One encoded example (no padding).
struct Encoding {
  std::vector<int64_t> input_ids;
  std::vector<int64_t> attention_mask;  ///< all ones (same length as input_ids)
  /// Segment of each id: 0 for the first text and its framing, 1 for the pair's text and its framing
  /// (HF's token_type_ids). Empty when the tokenizer's model reads none (Tokenizer::first_segment_length).
  std::vector<int64_t> token_type_ids;
};

/// One token of a text with the characters it stands for: code points [begin, end) of the text (as
/// Python indexes strings), like a Hugging Face fast tokenizer's offset_mapping with trim_offsets: the
/// spaces a byte-level token carries are not part of its span.
struct TokenOffsets {
  int64_t id = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

/// A padded batch.
struct BatchEncoding {
  torch::Tensor input_ids;       // (B, T) int64, right-padded with pad_id()
  torch::Tensor attention_mask;  // (B, T) int64, 1 on real tokens, 0 on padding
  torch::Tensor token_type_ids;  // (B, T) int64, 0 on padding; undefined when the tokenizer returns none
};

/// Batch padding target, as HF's padding=True / padding="max_length".
enum class Padding {
  kLongest,    ///< to the longest row of the batch
  kMaxLength,  ///< to EncodeOptions::max_length (rows must fit: enable truncation)
};

struct EncodeOptions {
  /// Frame the text(s) with the model's special tokens (HF add_special_tokens).
  TORCH_ARG(bool, add_special_tokens) = true;
  /// Cut to max_length ids (special tokens included) with HF's "longest_first" strategy.
  TORCH_ARG(bool, truncation) = false;
  /// Length limit for truncation and for Padding::kMaxLength; 0 = none.
  TORCH_ARG(int64_t, max_length) = 0;
};

/// RoBERTa's framing, shared by its byte-level BPE and by the suite's SentencePiece tokenizer:
/// `<s> a </s>` for one sequence, `<s> a </s></s> b </s>` for a pair.
std::vector<int64_t> roberta_framing(const std::vector<int64_t>& a, const std::optional<std::vector<int64_t>>& b,
                                     int64_t bos_id, int64_t eos_id);
/// Ids roberta_framing adds: 2 to one sequence, 4 to a pair.
inline int64_t roberta_framing_size(bool pair) { return pair ? 4 : 2; }

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /// Ids of `text` without special tokens added and without truncation (HF tokenize + convert).
  virtual std::vector<int64_t> encode_text(std::string_view text) const = 0;
  /// Ids of `text` as encode_text, each with its span in the text (extractive question answering maps
  /// predicted tokens back to answer characters with them).
  virtual std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const = 0;
  /// Frames one sequence, or a pair when `b` is given, with the model's special tokens.
  virtual std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                                  const std::optional<std::vector<int64_t>>& b) const = 0;
  /// How many ids add_special_tokens adds to a single sequence (pair = false) or to a pair.
  virtual int64_t num_special_tokens(bool pair) const = 0;
  /// Token types, as HF's tokenizers return them when "token_type_ids" is among the model's inputs
  /// (BERT's WordPiece: [CLS] a [SEP] is type 0, b [SEP] type 1): how many leading ids of
  /// add_special_tokens(a, b) are type 0 when `a` has `first_length` ids; every later id is type 1.
  /// nullopt (the default) for tokenizers whose models read no token types (RoBERTa's byte-level BPE,
  /// the suite's SentencePiece): their encodings carry none, and the model sees all zeros.
  virtual std::optional<int64_t> first_segment_length(int64_t first_length) const;
  /// Text of `ids` (HF decode with clean_up_tokenization_spaces=False); special tokens are kept as their
  /// text unless skip_special_tokens.
  virtual std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const = 0;
  virtual int64_t pad_id() const = 0;
  /// The id masked-language-model pre-training replaces tokens with ("<mask>").
  virtual int64_t mask_id() const = 0;
  /// Every special token id (framing, padding, unknown, mask): never chosen for MLM masking.
  virtual std::vector<int64_t> special_ids() const = 0;
  /// Number of ids (all ids are in [0, vocab_size())).
  virtual int64_t vocab_size() const = 0;

  /// Encodes `text`, or the pair (text, pair), as HF's tokenizer(text, text_pair, ...).
  Encoding encode(std::string_view text, const std::optional<std::string_view>& pair = std::nullopt,
                  const EncodeOptions& options = {}) const;
  /// Encodes and pads a batch of texts.
  BatchEncoding encode_batch(const std::vector<std::string>& texts, const EncodeOptions& options = {},
                             Padding padding = Padding::kLongest) const;
  /// Encodes and pads a batch of pairs (texts[i], pairs[i]).
  BatchEncoding encode_batch(const std::vector<std::string>& texts, const std::vector<std::string>& pairs,
                             const EncodeOptions& options = {}, Padding padding = Padding::kLongest) const;

 private:
  BatchEncoding pad(const std::vector<Encoding>& rows, const EncodeOptions& options, Padding padding) const;
};

/// Token type ids of a `length`-id row whose first `first_segment` ids are type 0 and the rest type 1;
/// empty when `first_segment` is nullopt (a tokenizer without token types).
std::vector<int64_t> token_types(int64_t length, const std::optional<int64_t>& first_segment);

/// Removes ids from the ends of `a` and `b` until a, b and `num_special` framing ids fit in
/// `max_length`, as transformers' fast tokenizers ("longest_first", the tokenizers library): a single
/// sequence loses its tail; in a pair the longer loses ids until both fit, and when both must lose, the
/// originally shorter keeps ⌊room/2⌋ and the longer ⌈room/2⌉ (`a` counts as the shorter on a tie).
/// transformers 4.30.2's slow tokenizers differ only on that odd id.
void truncate_longest_first(std::vector<int64_t>& a, std::optional<std::vector<int64_t>>& b,
                            int64_t num_special, int64_t max_length);

}  // namespace capaboost
