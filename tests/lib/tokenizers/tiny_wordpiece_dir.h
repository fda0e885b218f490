#pragma once
// Test helper: a temporary directory holding a tiny hand-made BERT vocab.txt (the special tokens first,
// as in BERT checkpoints, then words, "##" pieces and punctuation) and, when asked, tokenizer_config.json
// or tokenizer.json. Removed again when the helper goes out of scope.

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace capaboost::testing {

/// The tokens of TinyWordPieceDir's vocab.txt; a token's id is its index.
inline const std::vector<std::string>& tiny_wordpiece_tokens() {
  static const std::vector<std::string> tokens = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",                        // 0-4
      "the", "quick", "brown", "fox", "un", "##aff", "##able", "cafe",      // 5-12
      "!", ",", ".", "'", "s", "t", "don", "中", "文",                      // 13-21
      "a", "##a", "i", "##\xCC\x87", "?", "[", "]", "cl", "##s", "mask",    // 22-31: "##" U+0307
      "hello", "world", "Café", "##é", "caf", "e",                          // 32-37
  };
  return tokens;
}

class TinyWordPieceDir {
 public:
  TinyWordPieceDir() {
    std::string vocab;
    for (const auto& token : tiny_wordpiece_tokens()) vocab += token + "\n";
    write("vocab.txt", vocab);
  }

  std::string path() const { return dir_.path().string(); }
  /// Writes (or overwrites) a file of the directory.
  void write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_.file(name), std::ios::binary) << content;
  }
  int64_t id(const std::string& token) const {
    const auto& tokens = tiny_wordpiece_tokens();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i] == token) return static_cast<int64_t>(i);
    }
    throw std::invalid_argument("no token " + token + " in the tiny WordPiece vocabulary");
  }

 private:
  TempDir dir_;
};

}  // namespace capaboost::testing
