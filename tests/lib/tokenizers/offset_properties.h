#pragma once
// Test helper: what every tokenizer's character offsets must satisfy on any text, whatever the model:
// the ids are encode_text's, spans lie inside the text in order, every non-whitespace character is in
// some span, and (for tokenizers that trim whitespace) no span starts or ends on whitespace; and the
// spans of a text as plain pairs, to compare with expected ones.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tokenizers/tokenizer.h"
#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost::testing {

using OffsetSpans = std::vector<std::pair<int64_t, int64_t>>;

/// The code point spans [begin, end) encode_text_with_offsets gives the tokens of `text`.
inline OffsetSpans offset_spans(const Tokenizer& tokenizer, const std::string& text) {
  OffsetSpans spans;
  for (const auto& token : tokenizer.encode_text_with_offsets(text)) spans.emplace_back(token.begin, token.end);
  return spans;
}

inline void check_offset_properties(const Tokenizer& tokenizer, const std::string& text, bool spans_trim_whitespace) {
  INFO("text: " << text);
  std::vector<char32_t> chars;
  for (std::size_t b = 0; b < text.size();) {
    const auto cp = decode_utf8_at(text, b);
    chars.push_back(cp.cp);
    b += cp.length;
  }
  const auto n = static_cast<int64_t>(chars.size());
  const auto tokens = tokenizer.encode_text_with_offsets(text);
  std::vector<int64_t> ids;
  std::vector<bool> covered(chars.size(), false);
  int64_t previous_begin = 0, previous_end = 0;
  for (const auto& token : tokens) {
    ids.push_back(token.id);
    INFO("token " << token.id << " at [" << token.begin << ", " << token.end << ")");
    REQUIRE(0 <= token.begin);
    REQUIRE(token.begin <= token.end);
    REQUIRE(token.end <= n);
    CHECK(token.begin >= previous_begin);
    CHECK(token.end >= previous_end);
    previous_begin = token.begin;
    previous_end = token.end;
    for (int64_t c = token.begin; c < token.end; ++c) covered[static_cast<size_t>(c)] = true;
    if (spans_trim_whitespace && token.end > token.begin) {
      CHECK_FALSE(is_python_space(chars[static_cast<size_t>(token.begin)]));
      CHECK_FALSE(is_python_space(chars[static_cast<size_t>(token.end - 1)]));
    }
  }
  CHECK(ids == tokenizer.encode_text(text));
  for (size_t c = 0; c < chars.size(); ++c) {
    if (!is_python_space(chars[c])) CHECK(covered[c]);
  }
}

}  // namespace capaboost::testing
