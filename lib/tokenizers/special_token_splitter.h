#pragma once
// Cutting text around the special tokens written in it, as Hugging Face tokenizers' added vocabulary
// does before pre-tokenization: at each position the leftmost match wins, the longest among those
// starting there; a token with lstrip eats the whitespace (Python str.isspace) before it. Shared by the
// tokenizers (RoBERTa's <s> … <mask>, the Llama family's control tokens, BERT's [CLS] … [MASK]).
//
//   SpecialTokenSplitter splitter({{"<|im_start|>", 1}, {"<|im_end|>", 2}});
//   splitter.for_each_part("<|im_start|>user\nhi<|im_end|>", [&](const TextPart& part) {
//     part.special ? emit(part.special->id) : pre_tokenize(part.text);   // "user\nhi" in between
//   });

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

struct SpecialToken {
  std::string text;
  int64_t id = 0;
  bool lstrip = false;  ///< eat the whitespace before it (HF AddedToken lstrip=True)
};

/// A stretch of text: a special token (`special` set, `text` its match) or the plain text between two
/// (never empty). `text` views the split text, so its position there is text.data() − input.data().
struct TextPart {
  std::string_view text;
  const SpecialToken* special = nullptr;
};

class SpecialTokenSplitter {
 public:
  /// Splits nothing out (until assigned a splitter with tokens).
  SpecialTokenSplitter() = default;
  explicit SpecialTokenSplitter(std::vector<SpecialToken> tokens);

  /// Calls `on_part(const TextPart&)` for the parts of `text`, in order (no allocation: encoding short
  /// texts is hot); whitespace an lstrip token eats belongs to no part.
  template <typename OnPart>
  void for_each_part(std::string_view text, OnPart&& on_part) const {
    std::size_t segment_start = 0;
    for (std::size_t pos = 0; pos < text.size();) {
      const SpecialToken* found =
          first_bytes_[static_cast<unsigned char>(text[pos])] ? longest_at(text, pos) : nullptr;
      if (found == nullptr) {
        ++pos;
        continue;
      }
      std::string_view segment = text.substr(segment_start, pos - segment_start);
      if (found->lstrip) segment = without_trailing_space(segment);
      if (!segment.empty()) on_part(TextPart{segment, nullptr});
      on_part(TextPart{text.substr(pos, found->text.size()), found});
      pos += found->text.size();
      segment_start = pos;
    }
    if (segment_start < text.size()) on_part(TextPart{text.substr(segment_start), nullptr});
  }
  const std::vector<SpecialToken>& tokens() const { return tokens_; }
  /// The special token with `id`, or nullptr.
  const SpecialToken* find_id(int64_t id) const;

 private:
  /// The longest special token that starts at byte `pos` of `text`, or nullptr.
  const SpecialToken* longest_at(std::string_view text, std::size_t pos) const;
  /// Python's str.rstrip() (AddedToken lstrip=True strips the text before the token with it).
  static std::string_view without_trailing_space(std::string_view text);

  std::vector<SpecialToken> tokens_;
  std::array<bool, 256> first_bytes_{};  // bytes some special token starts with
};

}  // namespace capaboost
