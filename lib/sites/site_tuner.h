#pragma once
// The interface every PEFT method implements to live on a linear site.

#include <torch/torch.h>

#include <optional>

#include "sites/tuner.h"

namespace capaboost {

/// A PEFT method attached to one linear site (`TunableLinear`). The site computes its frozen output
/// y = x Wᵀ + b and hands x and y to the tuner, which returns the adapted output.
class SiteTunerImpl : public TunerImpl {
 public:
  /// x: (…, in) site input; y: (…, out) frozen site output. Returns the adapted output (…, out).
  virtual torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) = 0;

  /// ΔW (out, in) in float64 when the tuner is a linear update of the site weight (LoRA and its
  /// CapaBoost form), so it can be merged and its rank measured; nullopt for nonlinear tuners.
  virtual std::optional<torch::Tensor> delta_weight() const { return std::nullopt; }

  /// Forward FLOPs per token added to the site.
  virtual TunerFlops flops_per_token() const = 0;
};

using SiteTunerPtr = std::shared_ptr<SiteTunerImpl>;

}  // namespace capaboost
