#pragma once
// Dynamic masking for masked-language-model pre-training, as transformers 4.30.2's
// DataCollatorForLanguageModeling (torch_mask_tokens): each position that is not a special token (or
// padding) becomes a target with probability mlm_probability; a target's input is replaced by <mask>
// with probability 0.8, by a uniformly random id of the whole vocabulary with probability 0.1, and left
// unchanged otherwise; labels are the original id at targets and -100 elsewhere. A fresh mask per step
// (RoBERTa's dynamic masking), drawn from a generator seeded by (seed, step) only, so a run is
// repeatable and any step's mask can be recomputed.
//
//   MlmMasker masker(MlmMaskingOptions(tokenizer.mask_id(), tokenizer.vocab_size(),
//   tokenizer.special_ids())); auto batch = masker.mask(input_ids, step);   // batch.input_ids, batch.labels:
//   (B, T)

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace capaboost {

struct MlmMaskingOptions {
  MlmMaskingOptions(int64_t mask_id, int64_t vocab_size, std::vector<int64_t> special_ids)
      : mask_id_(mask_id), vocab_size_(vocab_size), special_ids_(std::move(special_ids)) {}
  TORCH_ARG(int64_t, mask_id);
  /// Random replacements are drawn from [0, vocab_size), specials included, as transformers does.
  TORCH_ARG(int64_t, vocab_size);
  /// Ids never chosen as targets: framing tokens, padding, <unk>, <mask>.
  TORCH_ARG(std::vector<int64_t>, special_ids);
  TORCH_ARG(double, mlm_probability) = 0.15;
  /// Share of targets replaced by <mask>; half of the rest gets a random id, the other half stays.
  TORCH_ARG(double, mask_replace_probability) = 0.8;
  TORCH_ARG(uint64_t, seed) = 2024;
};

/// One masked batch.
struct MlmBatch {
  torch::Tensor input_ids;  ///< (B, T) int64, with the replacements
  torch::Tensor labels;     ///< (B, T) int64, the original id at targets, -100 elsewhere
};

class MlmMasker {
 public:
  explicit MlmMasker(const MlmMaskingOptions& options);

  /// Masks `input_ids` (B, T) int64 for training step `step` (any int64 tag: the held-out evaluation
  /// uses its own). The same (seed, step, input) always gives the same batch.
  MlmBatch mask(const torch::Tensor& input_ids, int64_t step) const;
  /// (B, T) bool: positions that may become targets (not a special id).
  torch::Tensor maskable(const torch::Tensor& input_ids) const;

  const MlmMaskingOptions& options() const { return options_; }

 private:
  MlmMaskingOptions options_;
  torch::Tensor special_ids_;  // (S) int64
};

/// A 64-bit seed mixing `seed` and `stream` (SplitMix64 finaliser), for per-step generators.
uint64_t mix_seed(uint64_t seed, uint64_t stream);

}  // namespace capaboost
