#pragma once
// Test helper for the tokenizer parity tests: reading the integer lists the oracle scripts write as
// strings of space-separated integers (tests/oracle/tokenizer_reference.py: a few hundred thousand
// tokens parse far faster so), pairing a row's character spans with ours, and showing ids in a failure
// message, from where two lists part.

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizers/tokenizer.h"

namespace capaboost::testing {

/// The integers of an oracle list field, e.g. "1 19556 905".
inline std::vector<int64_t> oracle_integers(const nlohmann::json& field) {
  const std::string& text = field.get_ref<const std::string&>();
  std::vector<int64_t> values;
  const char* at = text.c_str();
  for (char* end = nullptr;; at = end) {
    const long long value = std::strtoll(at, &end, 10);
    if (end == at) break;
    values.push_back(value);
  }
  return values;
}

/// One token's span in an oracle row beside ours for the same token of the same text.
struct SpanPair {
  std::size_t token;                ///< index in the row's ids
  int64_t sequence;                 ///< 0: the text, 1: the pair
  int64_t begin, end;               ///< the oracle's span
  std::optional<TokenOffsets> ours; ///< none when ours has fewer tokens for that text
  bool same() const { return ours && ours->begin == begin && ours->end == end; }
};

/// The spans of an oracle row ("offsets" and "sequence": encoding.sequence_ids(), −1 for framing, which
/// has no span), in order, each with our k-th span of the same text, k counted per text.
inline std::vector<SpanPair> paired_spans(const Tokenizer& tokenizer, const std::string& text,
                                          const std::optional<std::string>& pair, const nlohmann::json& row) {
  const std::vector<TokenOffsets> spans[2] = {
      tokenizer.encode_text_with_offsets(text),
      pair ? tokenizer.encode_text_with_offsets(*pair) : std::vector<TokenOffsets>{}};
  std::size_t next[2] = {0, 0};
  const auto offsets = oracle_integers(row["offsets"]);
  const auto sequence = oracle_integers(row["sequence"]);
  std::vector<SpanPair> pairs;
  for (std::size_t t = 0; t < sequence.size(); ++t) {
    const int64_t s = sequence[t];
    if (s < 0) continue;
    const std::size_t k = next[s]++;
    pairs.push_back({t, s, offsets[2 * t], offsets[2 * t + 1],
                     k < spans[s].size() ? std::optional<TokenOffsets>(spans[s][k]) : std::nullopt});
  }
  return pairs;
}

/// "[begin, end)" of our span, or "none".
inline std::string show_span(const std::optional<TokenOffsets>& span) {
  return span ? "[" + std::to_string(span->begin) + ", " + std::to_string(span->end) + ")" : std::string("none");
}

/// 60 ids from index `from`, space-separated ("…" where some are left out).
inline std::string show_ids(const std::vector<int64_t>& values, std::size_t from = 0) {
  std::ostringstream out;
  if (from > 0) out << "[" << from << "] … ";
  for (std::size_t i = from; i < values.size() && i < from + 60; ++i) out << (i > from ? " " : "") << values[i];
  if (values.size() > from + 60) out << " …";
  return out.str();
}

/// The first index where `a` and `b` differ (the shorter one's size when one is a prefix of the other).
inline std::size_t first_difference(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

}  // namespace capaboost::testing
