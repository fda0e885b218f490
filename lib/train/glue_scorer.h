#pragma once
// Scoring a sequence classifier's outputs on a GLUE split: argmax classes (or the regression score
// for STS-B) against the split's own labels (exact float64 scores, not the float32 training labels),
// the task's metrics and its selection score.

#include "train/tokenized_dataset.h"
#include "train/training_split.h"

namespace capaboost {

class GlueScorer : public SplitScorer {
 public:
  /// `split` must outlive the scorer.
  explicit GlueScorer(const TokenizedDataset& split);
  /// outputs: logits (B, num_labels) for the examples batch.indices of the split.
  void add(const torch::Tensor& outputs, const Batch& batch) override;
  Score finish() override;

 private:
  const TokenizedDataset& split_;
  std::vector<int64_t> predicted_classes_, class_labels_;
  std::vector<double> predicted_scores_, score_labels_;
};

}  // namespace capaboost
