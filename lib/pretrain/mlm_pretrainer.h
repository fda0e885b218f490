#pragma once
// Masked-language-model pre-training of any MaskedLMImpl (RoBERTa or DeBERTa-v2 layout) on packed text blocks: AdamW with
// Hugging Face's decay groups, linear warm-up/decay, gradient clipping, dynamic masking, and a held-out
// MLM loss/accuracy at regular steps next to the baselines any useful model must beat: the unigram
// (always the most frequent training token), no context (copy what is visible) and the two-neighbour
// count model (pretrain/neighbour_count_model.h), which uses local context and nothing else.
//
//   auto result = pretrain_mlm(*model, train_blocks, heldout_blocks, MlmMasker(masking_options),
//                              MlmPretrainOptions().steps(2000).batch_size(32).peak_lr(1e-3));

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/masked_lm.h"
#include "pretrain/mlm_masking.h"
#include "pretrain/text_blocks.h"

namespace capaboost {

struct MlmPretrainOptions {
  /// Optimizer steps (one batch each).
  TORCH_ARG(int64_t, steps) = 1000;
  /// Blocks per batch.
  TORCH_ARG(int64_t, batch_size) = 32;
  TORCH_ARG(double, peak_lr) = 5e-4;
  TORCH_ARG(double, warmup_ratio) = 0.06;
  TORCH_ARG(double, weight_decay) = 0.01;
  /// Gradient-norm clip (Hugging Face's max_grad_norm); <= 0 disables it.
  TORCH_ARG(double, max_grad_norm) = 1.0;
  /// RoBERTa's pre-training Adam settings (β2 = 0.98, ε = 1e-6) rather than the fine-tuning defaults.
  TORCH_ARG(double, adam_beta2) = 0.98;
  TORCH_ARG(double, adam_eps) = 1e-6;
  /// Seeds the block order, the masks (through MlmMaskingOptions::seed, set by the caller) and dropout.
  TORCH_ARG(uint64_t, seed) = 2024;
  /// Held-out evaluation every this many steps (and always after the last step); 0 = only at the end.
  TORCH_ARG(int64_t, eval_every) = 200;
  /// Held-out blocks evaluated (the first ones; 0 = all).
  TORCH_ARG(int64_t, eval_max_blocks) = 256;
  /// Show a progress bar and the evaluation lines on stderr.
  TORCH_ARG(bool, show_progress) = true;
  TORCH_ARG(std::string, label) = "mlm";

 public:
  /// Every field that changes the result (not show_progress/label), for cache keys and records.
  nlohmann::json to_json() const;
};

/// One held-out evaluation.
struct MlmEvalPoint {
  int64_t step = 0;           ///< optimizer steps done
  double train_loss = 0.0;    ///< mean training loss over the steps since the previous point
  double heldout_loss = 0.0;  ///< mean cross-entropy over the held-out target positions
  double heldout_accuracy = 0.0;         ///< over all targets (<mask>, random and unchanged inputs)
  double heldout_masked_accuracy = 0.0;  ///< over the targets shown as <mask>: context alone
  double lr = 0.0;  ///< learning rate of the last step
  double elapsed_seconds = 0.0;
};

struct MlmPretrainResult {
  std::vector<MlmEvalPoint> log;
  double final_heldout_loss = 0.0;
  double final_heldout_accuracy = 0.0;
  double final_heldout_masked_accuracy = 0.0;
  /// Accuracy of always predicting `baseline_token` on the same held-out target positions.
  double baseline_accuracy = 0.0;
  /// Accuracy with no context at all: copy the input where it is not <mask>, else predict
  /// `baseline_token`. Overall accuracy above it needs context.
  double no_context_accuracy = 0.0;
  /// Accuracy at <mask> of the two-neighbour count model built from the training blocks, on the same
  /// held-out inputs: accuracy at <mask> above it uses more than the immediate neighbours.
  double neighbour_count_masked_accuracy = 0.0;
  int64_t baseline_token = -1;  ///< most frequent non-special id of the training blocks
  int64_t heldout_targets = 0;  ///< target positions per evaluation
  int64_t steps = 0;
  int64_t train_tokens = 0;  ///< tokens processed (steps × batch × block)
  double wall_seconds = 0.0;
  /// Training throughput, train_tokens / time spent in training steps (evaluations excluded).
  double tokens_per_second = 0.0;

  nlohmann::json to_json() const;
};

/// Pre-trains `model` (in place) on `train` blocks, evaluating on `heldout`. Batches visit the blocks
/// in a fresh seeded permutation per epoch; step s is masked with `masking` at tag s; the held-out
/// blocks get the same masks at every evaluation. Deterministic for a fixed thread count. Throws, naming
/// the step and learning rate, when the training loss becomes NaN or infinite.
MlmPretrainResult pretrain_mlm(MaskedLMImpl& model, const TextBlocks& train,
                               const TextBlocks& heldout, const MlmMasker& masker,
                               const MlmPretrainOptions& options);

}  // namespace capaboost
