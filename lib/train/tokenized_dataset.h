#pragma once
// A GLUE split tokenized once (ids per example, truncated to max_length) and cut into padded batches
// on demand. Padding to the longest example of each batch, not to max_length as the reference code
// does, is where most of the trainer's speed comes from: GLUE sentences are far shorter than 128.
//
//   auto train = TokenizedDataset::tokenize(splits.train, tokenizer, task, /*max_length=*/128);
//   Batch batch = train.collate({3, 17, 4});   // batch.input("input_ids"): (3, longest of the three)

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "data/example.h"
#include "data/glue_task.h"
#include "tokenizers/tokenizer.h"
#include "train/training_split.h"

namespace capaboost {

class TokenizedDataset : public TrainingSplit {
 public:
  /// Tokenizes every example as the task lays it out (single sentence or pair, with the model's
  /// special tokens, longest_first truncation to `max_length`), with its label. Examples without a
  /// label (GLUE test files) are an error naming the example's file line. `task` must outlive the
  /// dataset (glue_task() entries do).
  static TokenizedDataset tokenize(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                   const TaskInfo& task, int64_t max_length);

  /// The examples at `indices`: "input_ids" (B, T) int64 right-padded with the tokenizer's pad id,
  /// "attention_mask" (B, T) int64 (1 on tokens, 0 on padding), "token_type_ids" (B, T) int64 when the
  /// tokenizer returns token types (BERT's), and labels (B) int64 class ids or float32 scores.
  Batch collate(const std::vector<int64_t>& indices, BatchPadding padding = BatchPadding::kLongest) const override;
  int64_t size() const override { return static_cast<int64_t>(ids_.size()); }
  int64_t length(int64_t index) const override { return static_cast<int64_t>(ids(index).size()); }
  /// Scores argmax classes (or regression scores) with the task's GLUE metrics (metrics/glue_metrics.h).
  std::unique_ptr<SplitScorer> scorer() const override;

  const TaskInfo& task() const { return *task_; }
  bool regression() const { return task_->regression; }
  int64_t max_length() const { return max_length_; }
  /// Tokens of example i (special tokens included).
  const std::vector<int64_t>& ids(int64_t i) const { return ids_.at(static_cast<size_t>(i)); }
  /// Sum of all examples' lengths.
  int64_t total_tokens() const;
  const std::vector<int64_t>& class_labels() const { return class_labels_; }
  const std::vector<double>& score_labels() const { return score_labels_; }

 private:
  const TaskInfo* task_ = nullptr;
  std::vector<std::vector<int64_t>> ids_;
  std::vector<int64_t> first_segments_;  // type-0 ids per example; empty when the tokenizer has no token types
  std::vector<int64_t> class_labels_;  // classification tasks
  std::vector<double> score_labels_;   // regression (STS-B)
  int64_t max_length_ = 0;
  int64_t pad_id_ = 0;
};

}  // namespace capaboost
