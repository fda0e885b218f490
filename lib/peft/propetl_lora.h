#pragma once
// ProPETL-LoRA (Zeng et al., 2023): one LoRA prototype (A, B) shared by every site of a kind (all
// query projections share one, all value projections another), and per site a learned binary mask
// on each factor (peft/learned_mask.h):
//   y = x Wᵀ + b + (α/r) · (drop(x) (A⊙M_A)ᵀ)(B⊙M_B)ᵀ,   A: (r, in), B: (out, r), masks per site.
// The budget counts the prototypes and every site's real-valued scores (the paper's (L+1)/L × LoRA's
// 0.95%, printed as 1.04%), as floats: the scores train.

#include <torch/torch.h>

#include <string>

#include "peft/lora.h"
#include "sites/site_tuner.h"

namespace capaboost {

struct ProPetlLoraOptions {
  /* implicit */ ProPetlLoraOptions(int64_t rank = 32) : rank_(rank) {}
  TORCH_ARG(int64_t, rank);
  TORCH_ARG(double, alpha) = 48.0;
  TORCH_ARG(double, dropout) = 0.0;
  /// Fraction of each factor's entries a site's mask keeps (ProPETL's `sparsity`; its LoRA runs: 0.1).
  TORCH_ARG(double, keep) = 0.1;
};

/// The shared factors, initialised as LoRA's: A as `init` says, B = 0.
class LoraPrototypeImpl : public torch::nn::Module {
 public:
  LoraPrototypeImpl(int64_t rank, int64_t in_features, int64_t out_features, LoraInit init = LoraInit::kPeft);
  torch::Tensor A;  // (r, in)
  torch::Tensor B;  // (out, r)
};
TORCH_MODULE(LoraPrototype);

class ProPetlLoraImpl : public SiteTunerImpl {
 public:
  /// `owns_prototype`: this site registers the prototype as its child (one site per prototype), so
  /// it is trained, counted and saved once.
  ProPetlLoraImpl(const ProPetlLoraOptions& options, std::string site, LoraPrototype prototype, bool owns_prototype);

  std::string kind() const override { return "propetl_lora"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  std::optional<torch::Tensor> delta_weight() const override;
  /// This site's scores, plus the prototype at its owner.
  TunerParameterCount parameter_count() const override;
  /// LoRA's dense product; sparse_ideal counts the kept entries only.
  TunerFlops flops_per_token() const override;

  double scale() const { return options.alpha() / static_cast<double>(options.rank()); }
  /// The factors this site shares with the other sites of its kind.
  const LoraPrototype& prototype() const { return prototype_; }

  ProPetlLoraOptions options;
  torch::Tensor mask_scores_A;  // (r, in)
  torch::Tensor mask_scores_B;  // (out, r)

 private:
  LoraPrototype prototype_;
  bool owns_prototype_;
  std::string site_;
};
TORCH_MODULE(ProPetlLora);

}  // namespace capaboost
