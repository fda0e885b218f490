#pragma once
// What one fine-tuning run produced: a plain struct the harness stores as a run record.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "metrics/metric_values.h"
#include "train/training_scalars.h"

namespace capaboost {

/// One epoch: training loss, and the task metrics on the eval and test splits after it.
struct EpochMetrics {
  int64_t epoch = 0;          ///< 1-based
  double train_loss = 0;      ///< mean loss over the epoch's batches
  MetricValues eval;          ///< task metrics on the eval split
  double eval_score = 0;      ///< selection score on eval (selection_score)
  std::optional<double> eval_loss;  ///< task loss on eval (splits with labels)
  MetricValues test;          ///< task metrics on the test split
  double test_score = 0;
  double seconds = 0;         ///< training + evaluation time of the epoch
  int64_t train_tokens = 0;   ///< real (unpadded) tokens trained on; 0 for inputs without tokens (images)
  int64_t train_examples = 0; ///< examples trained on
};

/// How a training run ended.
enum class TrainStatus {
  kOk,
  kDiverged,  ///< the loss became NaN or infinite (TrainResult::failure says where)
};
std::string to_string(TrainStatus status);

struct TrainResult {
  TrainStatus status = TrainStatus::kOk;
  std::string failure;
  std::vector<EpochMetrics> epochs;
  int64_t best_epoch = 0;   ///< 1-based epoch with the best eval_score (the earliest on ties); 0 if none
  double eval_score = 0;    ///< at the best epoch
  MetricValues test;        ///< test metrics at the best epoch
  double test_score = 0;    ///< test selection score at the best epoch
  ParameterReport parameters;
  SiteRanks site_ranks;     ///< rank and spectrum of ΔW per tuned site after the last epoch
  int64_t steps = 0;        ///< optimizer steps taken
  /// SHA-256 of every epoch's training batches (their example indices, in order): the data order,
  /// which depends on the seed alone, so two runs of one configuration on any devices agree on it.
  std::string data_order_sha256;
  double wall_seconds = 0;
  double train_tokens_per_second = 0;    ///< real tokens per second of training (evaluation excluded); 0 for images
  double train_examples_per_second = 0;  ///< examples per second of training (evaluation excluded)
  double eval_tokens_per_second = 0;     ///< real tokens per second of evaluation (eval and test passes); 0 for images
  double eval_examples_per_second = 0;   ///< examples per second of evaluation
  double peak_rss_mib = 0;             ///< peak resident memory of the run (runtime/process_memory.h)
  /// The curves: per step and per scored epoch (train/training_scalars.h); written beside the record,
  /// not into it.
  std::vector<ScalarPoint> scalars;
  nlohmann::json method_summary = nlohmann::json::object();  ///< the method's training hooks' summary
  /// Tuners and head at the best epoch (checkpoint/tuned_state.h); empty unless TrainerOptions::keep_best_state.
  std::map<std::string, torch::Tensor> best_state;

  bool ok() const { return status == TrainStatus::kOk; }
  nlohmann::json to_json() const;
};

}  // namespace capaboost
