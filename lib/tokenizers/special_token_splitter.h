#pragma once
// Cutting text around the special tokens written in it, as Hugging Face tokenizers' added vocabulary
// does before pre-tokenization: at each position the leftmost match wins, the longest among those
// starting there; a token with lstrip eats the whitespace (Python str.isspace) before it. Shared by the
// tokenizers (RoBERTa's <s> … <mask>, the Llama family's control tokens, BERT's [CLS] … [MASK]).
//
//   SpecialTokenSplitter splitter({{"<|im_start|>", 1}, {"<|im_end|>", 2}});
//   for (const TextPart& part : splitter.split("<|im_start|>user\nhi<|im_end|>"))
//     part.special ? emit(part.special->id) : pre_tokenize(part.text);   // "user\nhi" in between

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

  /// The parts of `text`, in order; whitespace an lstrip token eats belongs to no part.
  std::vector<TextPart> split(std::string_view text) const;
  const std::vector<SpecialToken>& tokens() const { return tokens_; }
  /// The special token with `id`, or nullptr.
  const SpecialToken* find_id(int64_t id) const;

 private:
  std::vector<SpecialToken> tokens_;
  std::array<bool, 256> first_bytes_{};  // bytes some special token starts with
};

}  // namespace capaboost
