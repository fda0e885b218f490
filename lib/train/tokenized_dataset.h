#pragma once
// A GLUE split tokenized once (ids per example, truncated to max_length) and cut into padded batches
// on demand. Padding to the longest example of each batch, not to max_length as the reference code
// does, is where most of the trainer's speed comes from: GLUE sentences are far shorter than 128.
//
//   auto train = TokenizedDataset::tokenize(splits.train, tokenizer, task, /*max_length=*/128);
//   Batch batch = train.collate({3, 17, 4});   // batch.input_ids: (3, longest of the three)

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "data/example.h"
#include "data/glue_task.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

/// How a batch is padded.
enum class BatchPadding {
  kLongest,    ///< to the longest example in the batch (dynamic padding)
  kMaxLength,  ///< to the dataset's max_length (the reference's pad-to-128; for comparisons)
};

/// One training or evaluation batch.
struct Batch {
  torch::Tensor input_ids;       // (B, T) int64, right-padded with the tokenizer's pad id
  torch::Tensor attention_mask;  // (B, T) int64: 1 on tokens, 0 on padding
  torch::Tensor labels;          // (B) int64 class ids, or (B) float32 scores for regression
  int64_t tokens = 0;            ///< real (unpadded) tokens in the batch
};

class TokenizedDataset {
 public:
  /// Tokenizes every example as the task lays it out (single sentence or pair, with the model's
  /// special tokens, longest_first truncation to `max_length`), with its label. Examples without a
  /// label (GLUE test files) are an error naming the example's file line.
  static TokenizedDataset tokenize(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                   const TaskInfo& task, int64_t max_length);

  /// The examples at `indices`, padded as `padding` says.
  Batch collate(const std::vector<int64_t>& indices, BatchPadding padding = BatchPadding::kLongest) const;

  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  bool regression() const { return regression_; }
  int64_t max_length() const { return max_length_; }
  /// Tokens of example i (special tokens included).
  const std::vector<int64_t>& ids(int64_t i) const { return ids_.at(static_cast<size_t>(i)); }
  /// Sum of all examples' lengths.
  int64_t total_tokens() const;
  const std::vector<int64_t>& class_labels() const { return class_labels_; }
  const std::vector<double>& score_labels() const { return score_labels_; }

 private:
  std::vector<std::vector<int64_t>> ids_;
  std::vector<int64_t> class_labels_;  // classification tasks
  std::vector<double> score_labels_;   // regression (STS-B)
  bool regression_ = false;
  int64_t max_length_ = 0;
  int64_t pad_id_ = 0;
};

}  // namespace capaboost
