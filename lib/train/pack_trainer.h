#pragma once
// Training packed runs (train/run_pack.h) as train_model trains each alone: per run its own AdamW,
// learning-rate schedule, gradient clipping, divergence check, per-epoch evaluation, best epoch and
// result; one forward and one backward per step for all of them.
//
//   PackedSequenceClassifier pack(carrier, {run_a, run_b, run_c});
//   auto results = train_pack(pack, data, {options.lr(1e-3), options.lr(2e-3), options.lr(4e-3)});

#include <vector>

#include "train/run_pack.h"
#include "train/trainer.h"

namespace capaboost {

/// Trains every run of `pack` on `data`; options[i] is run i's. The options may differ only in lr and
/// label (the runs share their seed, epochs, batches and the rest); throws otherwise, and for options
/// asking what packs do not do (training hooks are not taken). Each result is what train_model gives
/// that run alone, up to rounding, except its times: wall_seconds and train_tokens_per_second are the
/// run's 1/k share of the pack's. A run whose loss diverges stops stepping; the others go on.
std::vector<TrainResult> train_pack(PackedSequenceClassifier& pack, const TrainingData& data,
                                    const std::vector<TrainerOptions>& options);

/// The metrics of every run of `pack` on `split` (evaluation mode, no gradients), as evaluate_model.
std::vector<Score> evaluate_pack(PackedSequenceClassifier& pack, const TrainingSplit& split, int64_t batch_size,
                                 runtime::Precision precision = runtime::Precision::kFp32);

}  // namespace capaboost
