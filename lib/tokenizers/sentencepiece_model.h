#pragma once
// A SentencePiece model file (spm.model) read and applied without libsentencepiece
// (sentencepiece_tokenizer.h says why): its pieces, scores and types, the model type (unigram or BPE),
// and its normaliser — identity (the suite's own models) or a precompiled character map such as
// nmt_nfkc's (DeBERTaV3's) — with SentencePiece's whitespace rules. The tokenizers that frame ids with a
// model's special tokens build on it (SentencePieceTokenizer, DebertaV2Tokenizer).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizers/precompiled_charsmap.h"

namespace capaboost {

class SentencePieceModel {
 public:
  enum class PieceType : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

  /// Reads `model_file`; errors name it and `fix` (what the user should do).
  SentencePieceModel(const std::string& model_file, const std::string& fix);
  SentencePieceModel(const SentencePieceModel&) = delete;
  SentencePieceModel& operator=(const SentencePieceModel&) = delete;

  /// The normalised text: rules applied, whitespace runs collapsed and trimmed, a dummy-prefix space,
  /// every space as U+2581 — what SentencePiece segments.
  std::string normalize(std::string_view text) const;
  /// Ids of `text` (normalised, then segmented: Viterbi for unigram, best-pair merges for BPE);
  /// consecutive unknown characters become one unknown id.
  std::vector<int64_t> encode(std::string_view text) const;
  /// The same ids, each with the bytes of `text` it came from, [begin, end): the normaliser's
  /// alignment carried through segmentation, as SentencePiece's own offsets are. The U+2581 a
  /// whitespace run or the dummy prefix became belongs to no character, so "▁Hello" spans "Hello";
  /// a piece that is only U+2581 has an empty span where its whitespace was.
  struct ByteSpan {
    int64_t id;
    std::size_t begin, end;
  };
  std::vector<ByteSpan> encode_with_spans(std::string_view text) const;
  /// Text of a run of ordinary pieces, as SentencePiece decodes it (U+2581 becomes a space, the
  /// dummy-prefix space is dropped).
  std::string decode(const std::vector<int64_t>& ids) const;

  int64_t size() const { return static_cast<int64_t>(pieces_.size()); }
  const std::string& piece(int64_t id) const;
  PieceType type(int64_t id) const;
  /// The id of a piece's text, if the model has it.
  std::optional<int64_t> find(const std::string& piece) const;
  int64_t unk_id() const { return unk_id_; }
  const std::string& file() const { return model_file_; }
  /// "identity", "nmt_nfkc", … as the model names its normaliser.
  const std::string& normalizer_name() const { return normalizer_name_; }

 private:
  struct Piece {
    std::string text;
    float score = 0.0f;
    PieceType type = PieceType::kNormal;
  };
  // Byte trie over the pieces text may produce (normal and user-defined): the Viterbi lattice walks it
  // once per start position instead of hashing every substring.
  struct TrieNode {
    std::vector<std::pair<uint8_t, int32_t>> children;  // (byte, node index)
    int32_t id = -1;                                    // piece ending here
  };
  int32_t trie_child(int32_t node, uint8_t byte) const;
  // Per normalised byte, the bytes of the input it stands for; empty ranges (begin == end, at the
  // position) for the U+2581 of whitespace and of the dummy prefix.
  using Alignment = std::vector<std::pair<std::size_t, std::size_t>>;
  std::string normalize_identity(std::string_view text, Alignment* alignment = nullptr) const;
  std::string normalize_with_charsmap(std::string_view text, Alignment* alignment = nullptr) const;
  // The next normalised unit of `text`: a user-defined symbol, a character-map rule, or one character.
  std::pair<std::string_view, std::size_t> normalize_prefix(std::string_view text) const;
  // `spans` (when given) receives each id's byte range in `normalized`.
  using Spans = std::vector<std::pair<std::size_t, std::size_t>>;
  void encode_unigram(std::string_view normalized, std::vector<int64_t>& ids, Spans* spans = nullptr) const;
  void encode_bpe(std::string_view normalized, std::vector<int64_t>& ids, Spans* spans = nullptr) const;

  std::string model_file_;
  std::vector<Piece> pieces_;
  std::unordered_map<std::string_view, int64_t> matchable_;  // views into pieces_[id].text
  std::unordered_map<std::string, int64_t> by_text_;
  std::vector<TrieNode> trie_;
  std::unique_ptr<PrecompiledCharsmap> charsmap_;
  std::string normalizer_name_;
  bool bpe_ = false;
  bool add_dummy_prefix_ = true;
  bool remove_extra_whitespaces_ = true;
  bool escape_whitespaces_ = true;
  float min_score_ = 0.0f;
  int64_t unk_id_ = 0;
};

/// Text of `ids` as the suite's SentencePiece tokenizers decode: runs of ordinary pieces through
/// model.decode; a special token (special_text gives its text, nullopt for ordinary ids) as its text,
/// unless skip_special_tokens; the segments separated by one space ("<s> Hello world </s>").
std::string decode_with_specials(const SentencePieceModel& model, const std::vector<int64_t>& ids,
                                 const std::function<std::optional<std::string>(int64_t)>& special_text,
                                 bool skip_special_tokens);

}  // namespace capaboost
