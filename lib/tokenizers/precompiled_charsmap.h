#pragma once
// SentencePiece's precompiled character map (NormalizerSpec.precompiled_charsmap), the compiled form of
// normalisation rules such as nmt_nfkc (NFKC plus SentencePiece's whitespace and control-character
// rules) that DeBERTaV3's spm.model carries. Read without libsentencepiece (sentencepiece_tokenizer.h
// says why): a little-endian uint32 trie size, a darts-clone double-array trie whose values are offsets,
// then the NUL-terminated replacement strings those offsets point into.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capaboost {

class PrecompiledCharsmap {
 public:
  /// `blob`: the precompiled_charsmap bytes; `source` names the file in errors.
  PrecompiledCharsmap(std::string_view blob, const std::string& source);

  /// The longest rule matching a prefix of `text`: (replacement, bytes consumed); nullopt when none does.
  std::optional<std::pair<std::string_view, std::size_t>> longest_prefix(std::string_view text) const;

 private:
  std::vector<uint32_t> units_;
  std::string normalized_;
};

}  // namespace capaboost
