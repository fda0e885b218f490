#pragma once
// ProPETL-Adapter (Zeng et al., 2023): one bottleneck adapter shared by every target site (each layer's
// feed-forward block; on its output projection or after its LayerNorm, peft/adapter_placement.h) and per
// site a learned binary mask on its two weight matrices (peft/learned_mask.h); the biases are shared and
// never masked:
//   y' = y + f(y (Down⊙M_d)ᵀ + b_down)(Up⊙M_u)ᵀ + b_up,   Down: (bn, C), Up: (C, bn)
// (without the leading y after a LayerNorm, whose residual site adds the sum).
// The budget counts the prototype and every site's scores (the paper prints 1.04%).

#include <torch/torch.h>

#include <string>

#include "peft/adapter.h"
#include "sites/site_tuner.h"

namespace capaboost {

struct ProPetlAdapterOptions {
  /* implicit */ ProPetlAdapterOptions(int64_t bottleneck = 64) : bottleneck_(bottleneck) {}
  TORCH_ARG(int64_t, bottleneck);
  TORCH_ARG(AdapterActivation, activation) = AdapterActivation::kRelu;
  /// Fraction of each weight's entries a site's mask keeps (ProPETL's adapter runs: 0.5).
  TORCH_ARG(double, keep) = 0.5;
  /// Add y back (on a projection's output), or return the correction alone (after a block's LayerNorm).
  TORCH_ARG(bool, residual) = true;
};

/// The shared adapter: weights ~ N(0, 0.02²), biases 0, as the plain adapter's.
class AdapterPrototypeImpl : public torch::nn::Module {
 public:
  AdapterPrototypeImpl(int64_t bottleneck, int64_t features);
  torch::Tensor down;       // (bn, C)
  torch::Tensor down_bias;  // (bn)
  torch::Tensor up;         // (C, bn)
  torch::Tensor up_bias;    // (C)
};
TORCH_MODULE(AdapterPrototype);

class ProPetlAdapterImpl : public SiteTunerImpl {
 public:
  /// `owns_prototype`: this site registers the shared adapter as its child (exactly one site does).
  ProPetlAdapterImpl(const ProPetlAdapterOptions& options, std::string site, AdapterPrototype prototype,
                     bool owns_prototype);

  std::string kind() const override { return "propetl_adapter"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  /// This site's scores, plus the prototype at its owner.
  TunerParameterCount parameter_count() const override;
  TunerFlops flops_per_token() const override;
  /// The adapter this site shares with every other target site.
  const AdapterPrototype& prototype() const { return prototype_; }

  ProPetlAdapterOptions options;
  torch::Tensor mask_scores_down;  // (bn, C)
  torch::Tensor mask_scores_up;    // (C, bn)

 private:
  AdapterPrototype prototype_;
  bool owns_prototype_;
  std::string site_;
};
TORCH_MODULE(ProPetlAdapter);

}  // namespace capaboost
