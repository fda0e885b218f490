#pragma once
// The BPE model shared by the suite's byte-level BPE tokenizers (RoBERTa's, read from vocab.json and
// merges.txt; the Llama family's, filled from GGUF metadata): a vocabulary of byte-level token strings
// (every byte of text stands for one printable code point, byte_unicode.h), merges by rank, and the BPE
// of one pre-tokenized piece, as Hugging Face tokenizers' BPE model does it:
//  1. the piece's bytes become the ids of their byte symbols; a byte whose symbol the vocabulary lacks
//     becomes the unknown token, consecutive unknown bytes of a piece one unknown token (fuse_unk);
//  2. the adjacent pair with the best merge rank merges, every occurrence left to right, until no
//     adjacent pair has a merge.
// What a tokenizer adds around it (special tokens, pre-tokenization, framing) lives in the tokenizer.
//
//   ByteLevelBpeModel bpe(tokens, merges, names);          // names: where tokens and merges came from
//   std::vector<ByteLevelBpeModel::Symbol> symbols;
//   bpe.append_piece("Ġhello", symbols);                   // ids, with the bytes each stands for
//   std::string text = bpe.token_bytes(symbols[0].id);     // the raw bytes of a token, for decode

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace capaboost {

/// A merge "left right" (left + right must be a token too); its rank is its position in the list.
struct ByteLevelBpeMerge {
  std::string left;
  std::string right;
};

/// Where a vocabulary came from, for error messages.
struct ByteLevelBpeSource {
  std::string vocabulary;                           ///< e.g. "<dir>/vocab.json"
  std::function<std::string(std::size_t)> merge;    ///< names the merge of a rank, e.g. "<dir>/merges.txt line 3"
  std::string fix;                                  ///< what to do about an inconsistent vocabulary
};

/// Thread-safe for concurrent encodes; not copyable (it owns its cache).
class ByteLevelBpeModel {
 public:
  /// One BPE symbol of a piece: a token id and how many bytes of the piece it stands for.
  struct Symbol {
    int32_t id;
    int32_t bytes;
  };

  /// `tokens[id]` are the vocabulary's token strings (distinct); `merges` in rank order, each naming
  /// two tokens whose concatenation is a token (a repeated merge keeps its last rank, as HF). Every byte
  /// needs its byte symbol in the vocabulary unless `unknown_id` is given to stand for bytes without
  /// one. Inconsistent input TORCH_CHECK-fails with `source`'s names and its fix.
  ByteLevelBpeModel(std::vector<std::string> tokens, const std::vector<ByteLevelBpeMerge>& merges,
                    const ByteLevelBpeSource& source, std::optional<int32_t> unknown_id = std::nullopt);
  ByteLevelBpeModel(const ByteLevelBpeModel&) = delete;
  ByteLevelBpeModel& operator=(const ByteLevelBpeModel&) = delete;

  /// Appends the symbols of `piece` (raw bytes of text, one pre-token) to `symbols`.
  void append_piece(std::string_view piece, std::vector<Symbol>& symbols) const;
  /// Appends the ids of `piece`'s symbols to `ids` (the hot path of encoding without spans).
  void append_piece_ids(std::string_view piece, std::vector<int64_t>& ids) const;

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  /// Id of a token, or nullopt when the vocabulary has no such token.
  std::optional<int64_t> find(const std::string& token) const;
  /// Token string of `id`; TORCH_CHECK-fails outside [0, size()).
  const std::string& token(int64_t id) const;
  /// Whether every character of token `id` stands for a byte, so token_bytes() is its text.
  bool decodable(int64_t id) const { return token_decodable_[static_cast<std::size_t>(id)]; }
  /// The raw bytes token `id` stands for (for decodable tokens).
  const std::string& token_bytes(int64_t id) const { return token_bytes_[static_cast<std::size_t>(id)]; }

 private:
  struct Merge {
    int32_t rank;
    int32_t merged_id;
  };
  // Calls emit(Symbol) for each symbol of `piece`, from the cache when it holds the piece.
  template <typename Emit>
  void for_each_symbol(std::string_view piece, Emit&& emit) const;
  std::vector<Symbol> apply_merges(std::string_view piece) const;

  std::string vocabulary_name_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> token_ids_;
  std::vector<std::string> token_bytes_;        // the raw bytes each token stands for (decode)
  std::vector<bool> token_decodable_;           // false for tokens with characters outside the byte map
  std::array<int32_t, 256> byte_ids_{};         // id of each single-byte symbol, or the unknown id
  std::array<bool, 256> byte_known_{};          // whether the byte has its own symbol
  std::unordered_map<uint64_t, Merge> merges_;  // (left id << 32 | right id) -> rank, merged id

  // BPE result per piece (HF keeps the same cache). Guarded for concurrent encodes; cleared when full so
  // adversarial input cannot grow it without bound.
  static constexpr std::size_t kCacheCapacity = 1 << 18;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<Symbol>> cache_;
};

}  // namespace capaboost
