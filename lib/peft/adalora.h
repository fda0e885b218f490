#pragma once
// AdaLoRA's update (Zhang et al., 2023) on a linear site: LoRA in SVD form,
//   y = x Wᵀ + b + (α/r) · drop(x) (P ⊙ λ)ᵀ Qᵀ,   P: (r, in), λ: (r, 1), Q: (out, r),
// where λ plays the singular values. The budget allocator (peft/adalora_allocator.h) zeroes the λ of
// unimportant triplets (Pᵢ, λᵢ, Qᵢ) during training, so ranks differ per site while the total follows
// a schedule; the orthogonality regulariser ‖PPᵀ − I‖ + ‖QᵀQ − I‖ keeps P and Q near-orthogonal.
// Parameter names follow Hugging Face PEFT's AdaLoRA: lora_A = P, lora_E = λ, lora_B = Q.

#include <torch/torch.h>

#include <string>

#include "sites/site_tuner.h"

namespace capaboost {

struct AdaLoraOptions {
  /* implicit */ AdaLoraOptions(int64_t initial_rank = 48) : initial_rank_(initial_rank) {}
  /// r, the rank every site starts with (the paper's RoBERTa-base setting: 48).
  TORCH_ARG(int64_t, initial_rank);
  /// The average rank per site the budget ends at (the paper: 32); the parameter count reports it.
  TORCH_ARG(int64_t, target_rank) = 32;
  /// Scale α/r (PEFT divides by r + 1e-5; the 1e-5 is left out).
  TORCH_ARG(double, alpha) = 32.0;
  TORCH_ARG(double, dropout) = 0.0;
};

class AdaLoraImpl : public SiteTunerImpl {
 public:
  AdaLoraImpl(const AdaLoraOptions& options, std::string site, int64_t in_features, int64_t out_features);

  std::string kind() const override { return "adalora"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  std::optional<torch::Tensor> delta_weight() const override;
  /// dense: every stored entry, r·(in + out + 1). effective: the target budget's share,
  /// target_rank·(in + out + 1): the allocator moves ranks between sites but keeps this total.
  TunerParameterCount parameter_count() const override;
  /// At the initial rank (executed) and at the target rank (what a pruned model computes).
  TunerFlops flops_per_token() const override;

  /// Triplets whose λ is not zero: the site's current rank.
  int64_t active_rank() const;
  double scale() const { return options.alpha() / static_cast<double>(options.initial_rank()); }
  const std::string& site() const { return site_; }

  AdaLoraOptions options;
  torch::Tensor lora_A;  // (r, in), P
  torch::Tensor lora_E;  // (r, 1), λ: starts at zero, so ΔW = 0 at step 0
  torch::Tensor lora_B;  // (out, r), Q

 private:
  std::string site_;
};
TORCH_MODULE(AdaLora);

}  // namespace capaboost
