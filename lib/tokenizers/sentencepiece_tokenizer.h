#pragma once
// SentencePiece (Kudo & Richardson, 2018) tokenizer for the suite's own pre-trained encoder: training a
// model on a text file, and the Tokenizer interface over it with RoBERTa's special ids and framing, so
// the RoBERTa model code runs unchanged on it:
//   <s> = 0, <pad> = 1, </s> = 2, <unk> = 3, <mask> = 4;   <s> A </s>   and   <s> A </s></s> B </s>
// <mask> is a user-defined symbol (the text "<mask>" encodes to it); the others are control symbols.
//
// Why no libsentencepiece in-process: Debian's libsentencepiece.so.0 carries its own protobuf-lite 3.14
// and exports its symbols, while libtorch loads libprotobuf 3.21; in one process the two interpose and
// every executable aborts at start-up (or at the first model load, depending on link order). So training
// runs Debian's `spm_train` in a child process, and encoding reads spm.model (a small protobuf) itself:
// models are trained with the identity normaliser, which leaves only whitespace handling to reproduce,
// then unigram pieces are chosen by Viterbi (maximum total log-probability) and BPE pieces by merging
// the best-scoring adjacent pair, as SentencePiece does.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/sentencepiece_model.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

struct SentencePieceTrainOptions {
  /// Pieces in the model, the five special tokens included.
  TORCH_ARG(int64_t, vocab_size) = 8000;
  /// "unigram" or "bpe".
  TORCH_ARG(std::string, model_type) = "unigram";
  /// Share of characters the vocabulary must cover; the rarest others become <unk>.
  TORCH_ARG(double, character_coverage) = 0.9999;
  /// Lines sampled for training (seeded); 0 = every line.
  TORCH_ARG(int64_t, input_sentence_size) = 0;
  TORCH_ARG(uint64_t, seed) = 2024;
  TORCH_ARG(int64_t, num_threads) = 2;
};

/// Trains a SentencePiece model on `text_file` (UTF-8, one sentence or paragraph per line) with
/// Debian's spm_train (package sentencepiece, `make deps`) and writes `out_dir`/spm.model and
/// `out_dir`/tokenizer_config.json (tokenizer class, model file, special tokens, training options).
/// Deterministic: the same file and options give a byte-identical spm.model, wherever the file lives.
void train_sentencepiece(const std::string& text_file, const std::string& out_dir,
                         const SentencePieceTrainOptions& options);

/// Immutable after loading, so thread-safe for concurrent encodes and decodes.
class SentencePieceTokenizer : public Tokenizer {
 public:
  /// File names inside a tokenizer directory.
  static constexpr const char* kModelFile = "spm.model";
  static constexpr const char* kConfigFile = "tokenizer_config.json";

  /// Loads `dir`/spm.model and checks it has the special ids above; errors name the file and the fix.
  static std::shared_ptr<SentencePieceTokenizer> from_dir(const std::string& dir);
  /// Loads one model file (same checks as from_dir).
  explicit SentencePieceTokenizer(const std::string& model_file);
  // The piece index holds views into the piece strings: not copyable, hold it by pointer.
  SentencePieceTokenizer(const SentencePieceTokenizer&) = delete;
  SentencePieceTokenizer& operator=(const SentencePieceTokenizer&) = delete;

  /// Pieces of `text`, e.g. "Hello world" -> {"▁Hello", "▁world"} (for inspection and tests).
  std::vector<std::string> tokenize(std::string_view text) const;

  std::vector<int64_t> encode_text(std::string_view text) const override;
  /// Spans from the normaliser's alignment (SentencePieceModel::encode_with_spans), as characters.
  std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const override;
  std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                          const std::optional<std::vector<int64_t>>& b) const override;
  int64_t num_special_tokens(bool pair) const override { return roberta_framing_size(pair); }
  /// Runs of ordinary pieces decode as SentencePiece does (U+2581 becomes a space, the dummy-prefix
  /// space is dropped); special tokens appear as their text separated by one space
  /// ("<s> Hello world </s>") unless skip_special_tokens.
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
  int64_t pad_id() const override { return kPadId; }
  int64_t mask_id() const override { return kMaskId; }
  std::vector<int64_t> special_ids() const override { return {kBosId, kPadId, kEosId, kUnkId, kMaskId}; }
  int64_t vocab_size() const override { return model_->size(); }

  int64_t bos_id() const { return kBosId; }
  int64_t eos_id() const { return kEosId; }
  int64_t unk_id() const { return kUnkId; }
  /// The piece of `id`; TORCH_CHECK-fails outside [0, vocab_size()).
  const std::string& id_to_piece(int64_t id) const;

  static constexpr int64_t kBosId = 0, kPadId = 1, kEosId = 2, kUnkId = 3, kMaskId = 4;

 private:
  bool is_special(int64_t id) const { return id >= 0 && id <= kMaskId; }

  std::unique_ptr<SentencePieceModel> model_;
};

}  // namespace capaboost
