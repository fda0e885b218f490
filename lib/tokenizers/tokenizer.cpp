#include "tokenizers/tokenizer.h"

#include <algorithm>

namespace capaboost {

std::vector<int64_t> roberta_framing(const std::vector<int64_t>& a, const std::optional<std::vector<int64_t>>& b,
                                     int64_t bos_id, int64_t eos_id) {
  std::vector<int64_t> ids;
  ids.reserve(a.size() + (b ? b->size() : 0) + static_cast<std::size_t>(roberta_framing_size(b.has_value())));
  ids.push_back(bos_id);
  ids.insert(ids.end(), a.begin(), a.end());
  ids.push_back(eos_id);
  if (b) {
    ids.push_back(eos_id);
    ids.insert(ids.end(), b->begin(), b->end());
    ids.push_back(eos_id);
  }
  return ids;
}

std::optional<int64_t> Tokenizer::first_segment_length(int64_t) const { return std::nullopt; }

std::vector<int64_t> token_types(int64_t length, const std::optional<int64_t>& first_segment) {
  std::vector<int64_t> types;
  if (!first_segment) return types;
  types.assign(static_cast<std::size_t>(length), 0);
  for (int64_t t = std::min(*first_segment, length); t < length; ++t) types[static_cast<std::size_t>(t)] = 1;
  return types;
}

void truncate_longest_first(std::vector<int64_t>& a, std::optional<std::vector<int64_t>>& b,
                            int64_t num_special, int64_t max_length) {
  TORCH_CHECK(max_length > 0, "truncation needs EncodeOptions::max_length > 0, got ", max_length);
  const auto len_a = static_cast<int64_t>(a.size());
  const auto len_b = b ? static_cast<int64_t>(b->size()) : int64_t{0};
  const int64_t excess = len_a + len_b + num_special - max_length;
  if (excess <= 0) return;
  if (!b) {
    // HF refuses (logs an error and returns the ids untouched) when the text cannot shrink enough;
    // an over-long row would surprise every caller, so this is an error here.
    TORCH_CHECK(len_a > excess, "cannot truncate to max_length=", max_length, ": ", num_special,
                " special tokens leave no room for the text; raise max_length");
    a.resize(static_cast<std::size_t>(len_a - excess));
    return;
  }
  TORCH_CHECK(len_a + len_b >= excess, "cannot truncate a pair to max_length=", max_length, ": its ",
              num_special, " special tokens alone exceed it; raise max_length");
  // As the tokenizers library (transformers' fast tokenizers) sizes the two: with room R for text, the
  // shorter keeps all it has and the longer what is left, unless the shorter needs more than half, when
  // the shorter gets ⌊R/2⌋ and the longer ⌈R/2⌉ (the first text counts as the shorter on a tie). 4.30.2's
  // slow tokenizers removed one id at a time from the longer and differ on the odd id.
  const int64_t room = len_a + len_b - excess;
  const bool a_longer = len_a > len_b;
  int64_t shorter = std::min(len_a, len_b);
  int64_t longer = shorter > room ? shorter : std::max(shorter, room - shorter);
  if (shorter + longer > room) {
    shorter = room / 2;
    longer = shorter + room % 2;
  }
  a.resize(static_cast<std::size_t>(std::min(len_a, a_longer ? longer : shorter)));
  b->resize(static_cast<std::size_t>(std::min(len_b, a_longer ? shorter : longer)));
}

Encoding Tokenizer::encode(std::string_view text, const std::optional<std::string_view>& pair,
                           const EncodeOptions& options) const {
  std::vector<int64_t> a = encode_text(text);
  std::optional<std::vector<int64_t>> b;
  if (pair) b = encode_text(*pair);
  if (options.truncation()) {
    const int64_t num_special = options.add_special_tokens() ? num_special_tokens(pair.has_value()) : 0;
    truncate_longest_first(a, b, num_special, options.max_length());
  }
  Encoding encoding;
  const auto first_length = static_cast<int64_t>(a.size());
  // Without framing the first segment is the first text alone (HF: add_special_tokens=False).
  std::optional<int64_t> first_segment = first_segment_length(first_length);
  if (options.add_special_tokens()) {
    encoding.input_ids = add_special_tokens(a, b);
  } else {
    if (first_segment) first_segment = first_length;
    encoding.input_ids = std::move(a);
    if (b) encoding.input_ids.insert(encoding.input_ids.end(), b->begin(), b->end());
  }
  encoding.attention_mask.assign(encoding.input_ids.size(), 1);
  encoding.token_type_ids = token_types(static_cast<int64_t>(encoding.input_ids.size()), first_segment);
  return encoding;
}

BatchEncoding Tokenizer::encode_batch(const std::vector<std::string>& texts, const EncodeOptions& options,
                                      Padding padding) const {
  std::vector<Encoding> rows;
  rows.reserve(texts.size());
  for (const auto& text : texts) rows.push_back(encode(text, std::nullopt, options));
  return pad(rows, options, padding);
}

BatchEncoding Tokenizer::encode_batch(const std::vector<std::string>& texts,
                                      const std::vector<std::string>& pairs, const EncodeOptions& options,
                                      Padding padding) const {
  TORCH_CHECK(texts.size() == pairs.size(), "encode_batch: ", texts.size(), " texts but ", pairs.size(),
              " pairs; pass one second text per first text");
  std::vector<Encoding> rows;
  rows.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    rows.push_back(encode(texts[i], std::string_view(pairs[i]), options));
  return pad(rows, options, padding);
}

BatchEncoding Tokenizer::pad(const std::vector<Encoding>& rows, const EncodeOptions& options,
                             Padding padding) const {
  std::size_t longest = 0;
  for (const auto& row : rows) longest = std::max(longest, row.input_ids.size());
  std::size_t width = longest;
  if (padding == Padding::kMaxLength) {
    TORCH_CHECK(options.max_length() > 0, "Padding::kMaxLength needs EncodeOptions::max_length > 0");
    width = static_cast<std::size_t>(options.max_length());
    TORCH_CHECK(longest <= width, "Padding::kMaxLength: a row has ", longest,
                " ids, more than max_length=", width, "; enable EncodeOptions::truncation");
  }
  const auto batch = static_cast<int64_t>(rows.size());
  auto input_ids = torch::full({batch, static_cast<int64_t>(width)}, pad_id(), torch::kInt64);  // (B, T)
  auto attention_mask = torch::zeros({batch, static_cast<int64_t>(width)}, torch::kInt64);      // (B, T)
  const bool typed = !rows.empty() && !rows.front().token_type_ids.empty();
  torch::Tensor token_type_ids;
  if (typed) token_type_ids = torch::zeros({batch, static_cast<int64_t>(width)}, torch::kInt64);  // (B, T)
  auto ids = input_ids.accessor<int64_t, 2>();
  auto mask = attention_mask.accessor<int64_t, 2>();
  for (int64_t r = 0; r < batch; ++r) {
    const auto& row = rows[static_cast<std::size_t>(r)];
    for (std::size_t t = 0; t < row.input_ids.size(); ++t) {
      ids[r][static_cast<int64_t>(t)] = row.input_ids[t];
      mask[r][static_cast<int64_t>(t)] = row.attention_mask[t];
    }
    if (typed) {
      auto types = token_type_ids.accessor<int64_t, 2>();
      for (std::size_t t = 0; t < row.token_type_ids.size(); ++t) types[r][static_cast<int64_t>(t)] = row.token_type_ids[t];
    }
  }
  return {input_ids, attention_mask, token_type_ids};
}

}  // namespace capaboost
