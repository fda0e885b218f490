#pragma once
// Test helpers for pre-training: a small deterministic English-like text (a tiny grammar, so a model
// can learn something in a few steps) written to files, and the tiny byte-level BPE tokenizer.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace capaboost::testing {

/// `count` sentences from a fixed grammar, the same for the same arguments.
inline std::vector<std::string> grammar_sentences(int64_t count, int64_t offset = 0) {
  const std::vector<std::string> subjects = {"the cat", "the dog", "a bird", "my friend", "the old man"};
  const std::vector<std::string> verbs = {"sees", "likes", "hears", "follows"};
  const std::vector<std::string> objects = {"the ball", "a tree", "the red car", "her brother", "the world"};
  std::vector<std::string> lines;
  for (int64_t i = offset; i < offset + count; ++i) {
    lines.push_back(subjects[i % 5] + " " + verbs[(i / 5) % 4] + " " + objects[(i / 20 + i) % 5] + ".");
  }
  return lines;
}

/// Writes `lines` to `path`, one per line.
inline void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& line : lines) out << line << "\n";
}

}  // namespace capaboost::testing
