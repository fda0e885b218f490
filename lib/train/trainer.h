#pragma once
// Fine-tuning a task model as the paper's runs do (Hugging Face Trainer semantics): AdamW with
// weight decay except on biases and LayerNorm, linear warm-up then linear decay, gradient-norm
// clipping, evaluation on the eval and test splits after every epoch, and the best epoch on eval
// reported on test. Which parameters train is set beforehand (train/trainable_selection.h). The
// trainer knows only the model interface (models/task_model.h) and the split interface
// (train/training_split.h), so every backbone and task type trains through it.
//
//   TrainingData data{std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(splits.train, …)), …};
//   TrainResult result = train_model(*model, data, TrainerOptions().lr(5e-4).epochs(20));

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/task_model.h"
#include "runtime/precision.h"
#include "train/lr_schedule.h"
#include "train/progress_bar.h"
#include "train/train_result.h"
#include "train/training_hooks.h"
#include "train/training_split.h"

namespace capaboost {

/// The trainer's settings; their defaults are the defaults of the harness's `finetune` parameters.
struct TrainerOptions {
  TORCH_ARG(double, lr) = 5e-4;
  TORCH_ARG(int64_t, epochs) = 3;
  TORCH_ARG(int64_t, batch_size) = 16;
  TORCH_ARG(int64_t, eval_batch_size) = 64;
  /// AdamW's decoupled weight decay on matrices (the paper's runs use 0.1).
  TORCH_ARG(double, weight_decay) = 0.1;
  TORCH_ARG(double, warmup_ratio) = 0.06;
  /// How the rate decays after warm-up (train/lr_schedule.h): linear, or cosine.
  TORCH_ARG(LrDecay, lr_decay) = LrDecay::kLinear;
  /// Maximum global gradient L2 norm; 0 disables clipping.
  TORCH_ARG(double, grad_clip) = 1.0;
  /// Precision of the matrix products in forward and evaluation (runtime/precision.h); weights,
  /// optimizer state and the loss stay fp32. The caller checks the CPU supports it (require_precision).
  TORCH_ARG(runtime::Precision, precision) = runtime::Precision::kFp32;
  /// Seeds dropout (the global torch generator) and the epoch orders (data/batching.h).
  TORCH_ARG(uint64_t, seed) = 42;
  TORCH_ARG(BatchPadding, padding) = BatchPadding::kLongest;
  /// Batches of examples of similar lengths (Hugging Face's group_by_length; data/batching.h), still
  /// in a seeded order: less padding. Off by default: the paper's runs shuffle without grouping.
  TORCH_ARG(bool, group_by_length) = false;
  /// With group_by_length: the grouped batches then run in a seeded random order instead of transformers'
  /// longest-first one. Under 50 batches an epoch is one mega-batch, sorted long to short, which cost
  /// Table 2 cpu's LoRA runs 3.8 points (docs/performance.md); shuffled, the batches keep their padding.
  TORCH_ARG(bool, shuffle_grouped_batches) = false;
  /// With group_by_length: batches per length-sorted group. 0 is transformers' own default
  /// (data/batching.h: min(examples / (4 × batch), 50), about four groups an epoch); 50, the default
  /// here because the first grouped runs were made with it, sorts an epoch of up to 50 batches as one
  /// group, from its longest examples to its shortest.
  TORCH_ARG(int64_t, mega_batch_mult) = 50;
  /// Measure the numerical rank of every tuned site's ΔW after training.
  TORCH_ARG(bool, measure_ranks) = true;
  /// Keep a copy of the tuned state (checkpoint/tuned_state.h: tuners and head) of the best epoch in
  /// TrainResult::best_state, the model the reported test score belongs to.
  TORCH_ARG(bool, keep_best_state) = false;
  /// Progress output (a bar on a terminal, lines otherwise); `label` prefixes it.
  TORCH_ARG(bool, progress) = true;
  TORCH_ARG(bool, interactive) = stderr_is_terminal();
  TORCH_ARG(std::string, label) = "";
};

/// A task's processed splits.
struct TrainingData {
  TrainingSplitPtr train, eval, test;
  /// The eval split is the test split (AdaLoRA's protocol): evaluate once per epoch; `test` is unused.
  bool eval_is_test = false;
  /// No held-out split to choose an epoch by (VTAB-1k's final stage trains on every labelled image):
  /// only the last epoch is scored and reported (earlier epochs record their training loss only).
  bool report_last_epoch = false;
};

/// Trains `model` on data.train for options.epochs and returns the per-epoch and best-epoch metrics.
/// A NaN or infinite loss stops training: the result has status kDiverged and says at which step.
/// `hooks` (a method's regulariser and per-step update, e.g. AdaLoRA's) may be null.
TrainResult train_model(TaskModelImpl& model, const TrainingData& data, const TrainerOptions& options,
                        TrainingHooks* hooks = nullptr);

/// The batches of training epoch `epoch` (0-based): the seeded epoch order cut into batches of
/// options.batch_size(), grouped by length when options.group_by_length() says so.
std::vector<std::vector<int64_t>> training_batches(const TrainingSplit& split, const TrainerOptions& options,
                                                   int64_t epoch);

/// The metrics of `model` on `split` (eval mode, no gradients), in batches of `batch_size` taken in
/// order of length (TrainingSplit::length, ties in index order) so that they pad little, the products
/// in `precision`.
Score evaluate_model(TaskModelImpl& model, const TrainingSplit& split, int64_t batch_size,
                     runtime::Precision precision = runtime::Precision::kFp32);

}  // namespace capaboost
