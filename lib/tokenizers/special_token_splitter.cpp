#include "tokenizers/special_token_splitter.h"

#include <torch/torch.h>

#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {

SpecialTokenSplitter::SpecialTokenSplitter(std::vector<SpecialToken> tokens) : tokens_(std::move(tokens)) {
  for (const auto& token : tokens_) {
    TORCH_CHECK(!token.text.empty(), "special token ", token.id, " has an empty text: it would match everywhere");
    first_bytes_[static_cast<unsigned char>(token.text[0])] = true;
  }
}

const SpecialToken* SpecialTokenSplitter::find_id(int64_t id) const {
  for (const auto& token : tokens_) {
    if (token.id == id) return &token;
  }
  return nullptr;
}

const SpecialToken* SpecialTokenSplitter::longest_at(std::string_view text, std::size_t pos) const {
  const SpecialToken* found = nullptr;
  for (const auto& token : tokens_) {
    if (text.compare(pos, token.text.size(), token.text) == 0 &&
        (found == nullptr || token.text.size() > found->text.size())) {
      found = &token;
    }
  }
  return found;
}

std::string_view SpecialTokenSplitter::without_trailing_space(std::string_view text) {
  while (!text.empty()) {
    const Utf8CodePoint last = decode_last_utf8(text);
    if (!is_python_space(last.cp)) break;
    text.remove_suffix(last.length);
  }
  return text;
}

}  // namespace capaboost
