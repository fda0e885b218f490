#pragma once
// What the trainer needs from a task's data: batches by index, and a scorer that turns the model's
// outputs over a split into the task's metrics. GLUE's TokenizedDataset implements it; a question-
// answering or image task brings its own without touching the trainer.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "data/batch.h"
#include "metrics/metric_values.h"

namespace capaboost {

/// A split's metrics and the model-selection score computed from them; evaluate_model (train/trainer.h)
/// adds what the pass cost and, for splits with labels, the loss.
struct Score {
  MetricValues metrics;
  double selection = 0;  ///< higher is better; the best epoch on eval is chosen by it
  std::optional<double> loss;  ///< the task loss, mean over examples; unset when the batches carry no labels (SQuAD)
  int64_t tokens = 0;          ///< real (unpadded) tokens scored; 0 for images
  int64_t examples = 0;        ///< examples scored
  double seconds = 0;          ///< wall time of the pass
};

/// Accumulates a model's outputs batch by batch and scores them at the end.
class SplitScorer {
 public:
  virtual ~SplitScorer() = default;
  /// outputs: what TaskModel::forward_batch returned for `batch`.
  virtual void add(const torch::Tensor& outputs, const Batch& batch) = 0;
  virtual Score finish() = 0;
};

class TrainingSplit {
 public:
  virtual ~TrainingSplit() = default;
  virtual int64_t size() const = 0;
  /// The length of example `index` in tokens, which length-grouped batching sorts by
  /// (TrainerOptions::group_by_length). Splits of fixed-size examples (images) keep the default: all
  /// equal, so grouping leaves their order as it is.
  virtual int64_t length(int64_t /*index*/) const { return 0; }
  /// The examples at `indices` as one batch, padded as `padding` says.
  virtual Batch collate(const std::vector<int64_t>& indices, BatchPadding padding) const = 0;
  /// A fresh scorer for one pass over this split.
  virtual std::unique_ptr<SplitScorer> scorer() const = 0;
};

using TrainingSplitPtr = std::shared_ptr<const TrainingSplit>;

}  // namespace capaboost
