#pragma once
// One batch as named tensors, the shape every task's data and every task model share: text tasks fill
// "input_ids" (B, T) and "attention_mask" (B, T); an image task would fill "pixel_values" (B, 3, H, W)
// and a span task its start/end labels, without a new batch type or trainer.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace capaboost {

/// How a batch is padded.
enum class BatchPadding {
  kLongest,    ///< to the longest example in the batch (dynamic padding)
  kMaxLength,  ///< to the dataset's max_length (the reference's pad-to-128; for comparisons)
};

struct Batch {
  std::map<std::string, torch::Tensor> inputs;  ///< model inputs by name (Hugging Face's names)
  torch::Tensor labels;  ///< (B) int64 class ids or (B) float32 scores; undefined when unlabeled
  int64_t examples = 0;  ///< B
  std::vector<int64_t> indices;  ///< the examples' positions in their split, in batch order
  int64_t tokens = 0;    ///< real (unpadded) tokens, for throughput; 0 for non-text inputs

  /// The input called `name`; the error lists the inputs the batch holds.
  const torch::Tensor& input(const std::string& name) const;
  /// The input called `name`, or an undefined tensor when the batch has none.
  torch::Tensor optional_input(const std::string& name) const;
};

}  // namespace capaboost
