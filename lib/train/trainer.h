#pragma once
// Fine-tuning a sequence classifier as the paper's runs do (Hugging Face Trainer semantics): AdamW
// with weight decay except on biases and LayerNorm, linear warm-up then linear decay, gradient-norm
// clipping, evaluation on the eval and test splits after every epoch, and the best epoch on eval
// reported on test. Which parameters train is set beforehand (train/trainable_selection.h).
//
//   TrainingData data{task, TokenizedDataset::tokenize(splits.train, …), …};
//   TrainResult result = train_sequence_classifier(*model, data, TrainerOptions().lr(5e-4).epochs(20));

#include <torch/torch.h>

#include <string>
#include <vector>

#include "data/glue_task.h"
#include "models/roberta.h"
#include "train/progress_bar.h"
#include "train/tokenized_dataset.h"
#include "train/train_result.h"

namespace capaboost {

struct TrainerOptions {
  TORCH_ARG(double, lr) = 5e-4;
  TORCH_ARG(int64_t, epochs) = 3;
  TORCH_ARG(int64_t, batch_size) = 16;
  TORCH_ARG(int64_t, eval_batch_size) = 64;
  /// AdamW's decoupled weight decay on matrices (the paper's runs use 0.1).
  TORCH_ARG(double, weight_decay) = 0.1;
  TORCH_ARG(double, warmup_ratio) = 0.06;
  /// Maximum global gradient L2 norm; 0 disables clipping.
  TORCH_ARG(double, grad_clip) = 1.0;
  /// Seeds dropout (the global torch generator) and the epoch orders (data/batching.h).
  TORCH_ARG(uint64_t, seed) = 42;
  TORCH_ARG(BatchPadding, padding) = BatchPadding::kLongest;
  /// Parameter-name prefixes of the task head (for the parameter report).
  TORCH_ARG(std::vector<std::string>, head_prefixes) = std::vector<std::string>{"classifier."};
  /// Measure the numerical rank of every tuned site's ΔW after training.
  TORCH_ARG(bool, measure_ranks) = true;
  /// Progress output (a bar on a terminal, lines otherwise); `label` prefixes it.
  TORCH_ARG(bool, progress) = true;
  TORCH_ARG(bool, interactive) = stderr_is_terminal();
  TORCH_ARG(std::string, label) = "";
};

/// A task's tokenized splits.
struct TrainingData {
  const TaskInfo* task = nullptr;
  TokenizedDataset train, eval, test;
  /// The eval split is the test split (AdaLoRA's protocol): evaluate once per epoch.
  bool eval_is_test = false;
};

/// Trains `model` on data.train for options.epochs and returns the per-epoch and best-epoch metrics.
/// A NaN or infinite loss stops training: the result has status "diverged" and says at which step.
TrainResult train_sequence_classifier(RobertaForSequenceClassificationImpl& model, const TrainingData& data,
                                      const TrainerOptions& options);

/// The task metrics of `model` on `dataset` (eval mode, no gradients), in batches of `batch_size`.
MetricValues evaluate_sequence_classifier(RobertaForSequenceClassificationImpl& model, const TaskInfo& task,
                                          const TokenizedDataset& dataset, int64_t batch_size);

}  // namespace capaboost
