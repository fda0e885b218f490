#include "train/glue_scorer.h"

#include "metrics/glue_metrics.h"

namespace capaboost {

GlueScorer::GlueScorer(const TokenizedDataset& split) : split_(split) {}

void GlueScorer::add(const torch::Tensor& outputs, const Batch& batch) {
  const auto count = static_cast<int64_t>(batch.indices.size());
  TORCH_CHECK(outputs.dim() == 2 && outputs.size(0) == count, "GlueScorer (", split_.task().name, "): outputs ",
              outputs.sizes(), " do not match the batch's ", count, " examples");
  if (split_.regression()) {
    const auto scores = outputs.select(1, 0).to(torch::kFloat64).contiguous();  // (B)
    for (int64_t i = 0; i < count; ++i) {
      predicted_scores_.push_back(scores.data_ptr<double>()[i]);
      score_labels_.push_back(split_.score_labels().at(static_cast<size_t>(batch.indices[i])));
    }
  } else {
    const auto classes = outputs.argmax(1).contiguous();  // (B) int64
    for (int64_t i = 0; i < count; ++i) {
      predicted_classes_.push_back(classes.data_ptr<int64_t>()[i]);
      class_labels_.push_back(split_.class_labels().at(static_cast<size_t>(batch.indices[i])));
    }
  }
}

Score GlueScorer::finish() {
  const TaskInfo& task = split_.task();
  Score score;
  score.metrics = task.regression ? glue_metrics(task, predicted_scores_, score_labels_)
                                  : glue_metrics(task, predicted_classes_, class_labels_);
  score.selection = selection_score(task, score.metrics);
  return score;
}

}  // namespace capaboost
