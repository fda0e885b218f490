#pragma once
// Test helper: a temporary directory with a tiny hand-made byte-level BPE vocabulary (vocab.json +
// merges.txt) in the Hugging Face layout: RoBERTa's special tokens, the 256 byte symbols, and one
// token per merge. Removed again when the helper goes out of scope.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tokenizers/byte_unicode.h"

namespace capaboost::testing {

using MergeList = std::vector<std::pair<std::string, std::string>>;

/// Merges enough for "the", " the", " world", "hello", " hello", "er", "aa".
inline MergeList default_tiny_merges() {
  return {{"Ġ", "t"},   {"h", "e"},    {"Ġt", "he"},   {"t", "he"},    {"o", "r"},
          {"l", "d"},   {"Ġ", "w"},    {"Ġw", "or"},   {"Ġwor", "ld"}, {"l", "l"},
          {"he", "ll"}, {"hell", "o"}, {"Ġ", "hello"}, {"e", "r"},     {"a", "a"}};
}

class TinyBpeDir {
 public:
  explicit TinyBpeDir(const MergeList& merges = default_tiny_merges()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "capaboost_bpe_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
    std::vector<std::string> tokens = {"<s>", "<pad>", "</s>", "<unk>"};
    for (int b = 0; b < 256; ++b) tokens.push_back(byte_symbol(static_cast<uint8_t>(b)));
    std::string merges_txt = "#version: 0.2\n";
    for (const auto& [left, right] : merges) {
      tokens.push_back(left + right);
      merges_txt += left + " " + right + "\n";
    }
    tokens.push_back("<mask>");
    nlohmann::json vocab = nlohmann::json::object();
    for (const auto& token : tokens) {
      const std::size_t next_id = vocab.size();
      if (!vocab.contains(token)) vocab[token] = next_id;
    }
    vocab_ = vocab;
    write("vocab.json", vocab.dump());
    write("merges.txt", merges_txt);
  }
  ~TinyBpeDir() { std::filesystem::remove_all(path_); }
  TinyBpeDir(const TinyBpeDir&) = delete;
  TinyBpeDir& operator=(const TinyBpeDir&) = delete;

  const std::string& path() const { return path_; }
  /// Overwrites (or creates) a file of the directory, e.g. to corrupt it.
  void write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ + "/" + name, std::ios::binary) << content;
  }
  void remove(const std::string& name) const { std::filesystem::remove(path_ + "/" + name); }
  int64_t id(const std::string& token) const { return vocab_.at(token).get<int64_t>(); }
  /// Id of the single-byte symbol of `byte`.
  int64_t byte_id(uint8_t byte) const { return id(byte_symbol(byte)); }
  const nlohmann::json& vocab() const { return vocab_; }

 private:
  std::string path_;
  nlohmann::json vocab_;
};

}  // namespace capaboost::testing
