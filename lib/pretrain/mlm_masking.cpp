#include "pretrain/mlm_masking.h"

#include <ATen/CPUGeneratorImpl.h>

#include "models/masked_lm.h"

namespace capaboost {

uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  // SplitMix64 over seed + golden-ratio multiples of the stream: neighbouring steps get unrelated seeds
  // (torch's Mersenne Twister seeded with n and n+1 would start from correlated states otherwise).
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

MlmMasker::MlmMasker(const MlmMaskingOptions& options) : options_(options) {
  TORCH_CHECK(options_.mlm_probability() > 0.0 && options_.mlm_probability() < 1.0,
              "MlmMaskingOptions: mlm_probability must be in (0, 1), got ", options_.mlm_probability());
  TORCH_CHECK(options_.mask_replace_probability() >= 0.0 && options_.mask_replace_probability() <= 1.0,
              "MlmMaskingOptions: mask_replace_probability must be in [0, 1], got ",
              options_.mask_replace_probability());
  TORCH_CHECK(options_.mask_id() >= 0 && options_.mask_id() < options_.vocab_size(),
              "MlmMaskingOptions: mask_id ", options_.mask_id(), " is outside the vocabulary [0, ",
              options_.vocab_size(), ")");
  special_ids_ = torch::tensor(options_.special_ids(), torch::kInt64);
}

torch::Tensor MlmMasker::maskable(const torch::Tensor& input_ids) const {
  return torch::isin(input_ids, special_ids_).logical_not();
}

MlmBatch MlmMasker::mask(const torch::Tensor& input_ids, int64_t step) const {
  TORCH_CHECK(input_ids.dim() == 2 && input_ids.scalar_type() == torch::kInt64,
              "MlmMasker: input_ids must be (B, T) int64, got ", input_ids.sizes(), " ",
              input_ids.scalar_type());
  auto generator =
      at::make_generator<at::CPUGeneratorImpl>(mix_seed(options_.seed(), static_cast<uint64_t>(step)));
  const auto shape = input_ids.sizes();
  const auto uniform = [&] { return torch::rand(shape, generator); };
  // The draws follow transformers' order (target, <mask>, random, random id); u < p is Bernoulli(p).
  const auto targets = (uniform() < options_.mlm_probability()).logical_and_(maskable(input_ids));
  const auto to_mask = (uniform() < options_.mask_replace_probability()).logical_and_(targets);
  const auto to_random = (uniform() < 0.5).logical_and_(targets).logical_and_(to_mask.logical_not());
  const auto random_ids = torch::randint(options_.vocab_size(), shape, generator, torch::kInt64);

  MlmBatch batch;
  batch.labels = input_ids.masked_fill(targets.logical_not(), kIgnoreLabel);
  batch.input_ids =
      input_ids.masked_fill(to_mask, options_.mask_id()).where(to_random.logical_not(), random_ids);
  return batch;
}

}  // namespace capaboost
