#pragma once
// Reading the two files of a Hugging Face byte-level BPE tokenizer (GPT-2 / RoBERTa layout):
//   vocab.json  {"token": id, ...} with ids exactly 0..N-1
//   merges.txt  an optional "#version: ..." line, then one merge "left right" per line, best first
// Errors name the file and what to fix; checks that need both files live in the tokenizer.

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

/// One line of merges.txt; its rank is its position among the merges.
struct BpeMerge {
  std::string left;
  std::string right;
  int64_t line;  ///< 1-based line number in merges.txt, for error messages
};

struct BpeFiles {
  std::vector<std::string> tokens;  ///< tokens[id], from vocab.json
  std::vector<BpeMerge> merges;     ///< in rank order, from merges.txt
};

/// Reads and validates `directory`/vocab.json and `directory`/merges.txt.
BpeFiles read_bpe_files(const std::string& directory);

}  // namespace capaboost
