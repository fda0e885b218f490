#pragma once
// Id rows of different lengths right-padded into one (B, T) batch, the step every text split's collate
// shares (GLUE's TokenizedDataset, SQuAD's windows); the split adds its labels.

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "data/batch.h"

namespace capaboost {

/// The examples `indices` whose ids are `rows` (one per index) as a batch: "input_ids" (B, T) int64
/// right-padded with `pad_id` to `width` columns (0: to the longest row) and "attention_mask" (B, T)
/// int64, 1 on ids and 0 on padding. With `first_segments` (one per row: how many leading ids are token
/// type 0, Tokenizer::first_segment_length) also "token_type_ids" (B, T) int64: 0 on the first segment
/// and on padding, 1 on the rest of the row. A row longer than `width` is an error.
inline Batch padded_text_batch(const std::vector<int64_t>& indices, const std::vector<const std::vector<int64_t>*>& rows,
                               int64_t width, int64_t pad_id, const std::vector<int64_t>* first_segments = nullptr) {
  TORCH_CHECK(rows.size() == indices.size(), "padded_text_batch: ", rows.size(), " rows for ", indices.size(), " indices");
  int64_t longest = 0;
  for (const auto* row : rows) longest = std::max<int64_t>(longest, static_cast<int64_t>(row->size()));
  if (width == 0) width = longest;
  TORCH_CHECK(longest <= width, "padded_text_batch: a row has ", longest, " ids, more than the ", width, " columns asked for");
  const auto batch_size = static_cast<int64_t>(rows.size());
  auto input_ids = torch::full({batch_size, width}, pad_id, torch::kInt64);  // (B, T)
  auto attention_mask = torch::zeros({batch_size, width}, torch::kInt64);     // (B, T)
  auto ids = input_ids.accessor<int64_t, 2>();
  auto mask = attention_mask.accessor<int64_t, 2>();
  Batch batch;
  for (int64_t r = 0; r < batch_size; ++r) {
    const auto& row = *rows[static_cast<size_t>(r)];
    for (size_t t = 0; t < row.size(); ++t) {
      ids[r][static_cast<int64_t>(t)] = row[t];
      mask[r][static_cast<int64_t>(t)] = 1;
    }
    batch.tokens += static_cast<int64_t>(row.size());
  }
  if (first_segments != nullptr) {
    TORCH_CHECK(first_segments->size() == rows.size(), "padded_text_batch: ", first_segments->size(),
                " first-segment lengths for ", rows.size(), " rows");
    auto token_type_ids = torch::zeros({batch_size, width}, torch::kInt64);  // (B, T)
    auto types = token_type_ids.accessor<int64_t, 2>();
    for (int64_t r = 0; r < batch_size; ++r) {
      const auto length = static_cast<int64_t>(rows[static_cast<size_t>(r)]->size());
      for (int64_t t = (*first_segments)[static_cast<size_t>(r)]; t < length; ++t) types[r][t] = 1;
    }
    batch.inputs["token_type_ids"] = token_type_ids;
  }
  batch.examples = batch_size;
  batch.indices = indices;
  batch.inputs["input_ids"] = input_ids;
  batch.inputs["attention_mask"] = attention_mask;
  return batch;
}

}  // namespace capaboost
