#include "tokenizers/special_token_splitter.h"

#include <torch/torch.h>

#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

// Python's str.rstrip(): AddedToken(lstrip=True) strips the text segment before the token with it.
std::string_view rstrip_python_space(std::string_view text) {
  while (!text.empty()) {
    const Utf8CodePoint last = decode_last_utf8(text);
    if (!is_python_space(last.cp)) break;
    text.remove_suffix(last.length);
  }
  return text;
}

}  // namespace

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

std::vector<TextPart> SpecialTokenSplitter::split(std::string_view text) const {
  std::vector<TextPart> parts;
  const auto add_plain = [&](std::string_view plain) {
    if (!plain.empty()) parts.push_back({plain, nullptr});
  };
  std::size_t segment_start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const SpecialToken* found = nullptr;
    if (first_bytes_[static_cast<unsigned char>(text[pos])]) {
      for (const auto& token : tokens_) {
        if (text.compare(pos, token.text.size(), token.text) == 0 &&
            (found == nullptr || token.text.size() > found->text.size())) {
          found = &token;
        }
      }
    }
    if (found == nullptr) {
      ++pos;
      continue;
    }
    const std::string_view segment = text.substr(segment_start, pos - segment_start);
    add_plain(found->lstrip ? rstrip_python_space(segment) : segment);
    parts.push_back({text.substr(pos, found->text.size()), found});
    pos += found->text.size();
    segment_start = pos;
  }
  add_plain(text.substr(segment_start));
  return parts;
}

}  // namespace capaboost
