#pragma once
// Id rows of different lengths right-padded into one (B, T) batch, the step every text split's collate
// shares (GLUE's TokenizedDataset, SQuAD's windows).

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace capaboost {

struct PaddedRows {
  torch::Tensor input_ids;       // (B, T) int64, right-padded with the pad id
  torch::Tensor attention_mask;  // (B, T) int64, 1 on ids, 0 on padding
  int64_t tokens = 0;            // ids before padding
};

/// `rows` padded to `width` columns (0: to the longest row); a row longer than `width` is an error.
inline PaddedRows pad_rows(const std::vector<const std::vector<int64_t>*>& rows, int64_t width, int64_t pad_id) {
  int64_t longest = 0;
  for (const auto* row : rows) longest = std::max<int64_t>(longest, static_cast<int64_t>(row->size()));
  if (width == 0) width = longest;
  TORCH_CHECK(longest <= width, "pad_rows: a row has ", longest, " ids, more than the ", width, " columns asked for");
  const auto batch = static_cast<int64_t>(rows.size());
  PaddedRows padded{torch::full({batch, width}, pad_id, torch::kInt64), torch::zeros({batch, width}, torch::kInt64)};
  auto ids = padded.input_ids.accessor<int64_t, 2>();
  auto mask = padded.attention_mask.accessor<int64_t, 2>();
  for (int64_t r = 0; r < batch; ++r) {
    const auto& row = *rows[static_cast<size_t>(r)];
    for (size_t t = 0; t < row.size(); ++t) {
      ids[r][static_cast<int64_t>(t)] = row[t];
      mask[r][static_cast<int64_t>(t)] = 1;
    }
    padded.tokens += static_cast<int64_t>(row.size());
  }
  return padded;
}

}  // namespace capaboost
