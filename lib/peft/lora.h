#pragma once
// LoRA (Hu et al., 2022) on a linear site, optionally boosted by CapaBoost:
//   y = x Wᵀ + b + (α/r) · Σᵢ₌₁ᵈ (drop(x) (A⊙Ma_i)ᵀ) (B⊙Mb_i)ᵀ,   A: (r, in), B: (out, r).
// The scale α/r is applied once to the sum (no 1/d), as in the reference implementation.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "capaboost/branch_stack.h"
#include "sites/site_tuner.h"

namespace capaboost {

/// How A is initialised (B always starts at zero, so ΔW = 0 at step 0).
enum class LoraInit {
  kPeft,       ///< Kaiming-uniform A (a = √5, i.e. U(±1/√in)), as Hugging Face PEFT and loralib
  kReference,  ///< A ~ U(±1/√r), as the CapaBoost reference code (its hyper-parameters were tuned with it)
};
LoraInit parse_lora_init(const std::string& name);
std::string to_string(LoraInit init);
/// "peft", "reference": what a spec's `lora_init:` may say.
std::vector<std::string> lora_init_names();
/// Fills A (r, in) in place as `init` says (no gradient recorded).
void initialize_lora_a(torch::Tensor& A, LoraInit init);

struct LoraOptions {
  /* implicit */ LoraOptions(int64_t rank = 8) : rank_(rank) {}
  TORCH_ARG(int64_t, rank);
  TORCH_ARG(double, alpha) = 16.0;
  /// Dropout probability on the tuner's input x (training only).
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(LoraInit, init) = LoraInit::kPeft;
  TORCH_ARG(CapaBoostOptions, capaboost) = CapaBoostOptions();
};

class LoraImpl : public SiteTunerImpl {
 public:
  LoraImpl(const LoraOptions& options, std::string site, int64_t in_features, int64_t out_features);

  std::string kind() const override { return "lora"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  std::optional<torch::Tensor> delta_weight() const override;
  TunerParameterCount parameter_count() const override;
  TunerFlops flops_per_token() const override;
  std::vector<torch::Tensor> applied_masks() const override { return stack_.applied_masks(); }

  /// A_cat (d·r, in) and B_cat (out, d·r): the stacked masked factors of the current step.
  std::pair<torch::Tensor, torch::Tensor> stacked_factors(bool training);
  double scale() const { return options.alpha() / static_cast<double>(options.rank()); }

  LoraOptions options;
  torch::Tensor A;  // (r, in)
  torch::Tensor B;  // (out, r)

 private:
  // Mutable: delta_weight() is logically const but the mask cache fills lazily.
  mutable BranchStack stack_;
};
TORCH_MODULE(Lora);

}  // namespace capaboost
