#pragma once
// A SQuAD split as the trainer sees it: one example per context window (data/squad_features.h), batches
// of "input_ids", "attention_mask", "start_positions" and "end_positions", and a scorer that gathers
// every window's start/end logits, turns them into one answer per question
// (metrics/squad_postprocess.h) and scores the answers as the official script of the split's version
// does (metrics/squad_evaluation.h).
//
//   auto split = std::make_shared<SquadSplit>(dataset, tokenizer, SquadFeatureOptions().max_length(128).doc_stride(32),
//                                             SquadPostprocessOptions());
//   Score score = evaluate_model(model, *split, 64);   // score.metrics["exact_match"], ["f1"] (fractions)

#include <memory>

#include "data/squad_dataset.h"
#include "data/squad_features.h"
#include "metrics/squad_postprocess.h"
#include "tokenizers/tokenizer.h"
#include "train/training_split.h"

namespace capaboost {

class SquadSplit : public TrainingSplit {
 public:
  /// `dataset` holds the split's questions; its major_version chooses the metrics (v2.0 lets the null
  /// answer compete, whatever `postprocess` says).
  SquadSplit(SquadDataset dataset, const Tokenizer& tokenizer, const SquadFeatureOptions& features,
             SquadPostprocessOptions postprocess);

  /// Features (windows) at `indices`, right-padded with the tokenizer's pad id to the longest of them or
  /// to max_length; start_positions and end_positions (B) int64.
  Batch collate(const std::vector<int64_t>& indices, BatchPadding padding = BatchPadding::kLongest) const override;
  int64_t size() const override { return static_cast<int64_t>(features_.size()); }
  int64_t length(int64_t index) const override {
    return static_cast<int64_t>(features_.at(static_cast<size_t>(index)).input_ids.size());
  }
  /// Metrics (fractions, as the official scripts' percentages / 100): exact_match and f1 (v2.0's "exact"
  /// is called exact_match too), for v2.0 also the HasAns_/NoAns_ splits and total, and the script's
  /// best-threshold numbers, which choose the threshold on this very split, as oracle_best_exact,
  /// oracle_best_f1 (with their thresholds). Selection score: f1.
  std::unique_ptr<SplitScorer> scorer() const override;

  const SquadDataset& dataset() const { return dataset_; }
  const std::vector<SquadFeature>& features() const { return features_; }
  const SquadPostprocessOptions& postprocess() const { return postprocess_; }

 private:
  SquadDataset dataset_;
  std::vector<SquadFeature> features_;
  SquadPostprocessOptions postprocess_;
  int64_t max_length_ = 0;
  int64_t pad_id_ = 0;
};

/// The official evaluation's numbers as the suite's metrics: percentages to fractions, the
/// best-threshold search renamed oracle_…, counts and thresholds as they are.
MetricValues squad_metric_values(const nlohmann::ordered_json& evaluation);

}  // namespace capaboost
