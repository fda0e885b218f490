#pragma once
// The interface every PEFT method implements to live on a linear site.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>

namespace capaboost {

/// Parameter counts of one tuner.
struct TunerParameterCount {
  int64_t dense = 0;  ///< trainable entries stored
  int64_t effective =
      0;  ///< entries that any branch can see (union of the branch masks; = dense without masks)
};

/// Analytic forward FLOPs per token that a tuner adds to its site (multiply-add = 2 FLOPs).
struct TunerFlops {
  double executed = 0;      ///< what this implementation computes (masked factors are multiplied densely)
  double sparse_ideal = 0;  ///< what a kernel that skips masked-out entries would compute
};

/// A PEFT method attached to one linear site (`TunableLinear`). The site computes its frozen output
/// y = x Wᵀ + b and hands x and y to the tuner, which returns the adapted output. The tuner's own
/// parameters are its trainable factors; it is registered as a child module of the site, so its
/// parameter names extend the site's (`…attention.self.query.lora.A`).
class SiteTunerImpl : public torch::nn::Module {
 public:
  /// The tuner's short name; also the child-module name under the site ("lora", "adapter").
  virtual std::string kind() const = 0;

  /// x: (…, in) site input; y: (…, out) frozen site output. Returns the adapted output (…, out).
  virtual torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) = 0;

  /// ΔW (out, in) in float64 when the tuner is a linear update of the site weight (LoRA and its
  /// CapaBoost form), so it can be merged and its rank measured; nullopt for nonlinear tuners.
  virtual std::optional<torch::Tensor> delta_weight() const { return std::nullopt; }

  /// Trainable parameter counts, dense and effective (CapaBoost masks).
  virtual TunerParameterCount parameter_count() const = 0;

  /// Forward FLOPs per token added to the site.
  virtual TunerFlops flops_per_token() const = 0;
};

using SiteTunerPtr = std::shared_ptr<SiteTunerImpl>;

}  // namespace capaboost
