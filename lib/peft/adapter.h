#pragma once
// Bottleneck adapter (Houlsby et al., 2019; Pfeiffer et al., 2021) on a linear site's output, or after
// a residual block's LayerNorm (sites/residual_site.h, with residual(false)), optionally boosted by
// CapaBoost:
//   y' = y + Σᵢ₌₁ᵈ f(y (Down⊙Md_i)ᵀ + b_down) (Up⊙Mu_i)ᵀ + b_up,  Down: (bn, out), Up: (out, bn).
// Placement is a choice of sites (the `adapter` method's targets and placement): Pfeiffer = after every
// layer's FFN block and its LayerNorm; Houlsby = the attention output projection and the FFN output
// projection. Biases are shared by all branches and never masked (b_up is added once).

#include <torch/torch.h>

#include <string>
#include <vector>

#include "capaboost/branch_stack.h"
#include "sites/site_tuner.h"

namespace capaboost {

enum class AdapterActivation { kRelu, kGelu, kSwish };
AdapterActivation parse_adapter_activation(const std::string& name);
std::string to_string(AdapterActivation activation);
/// "relu", "gelu", "swish": what a spec's `activation:` may say.
std::vector<std::string> adapter_activation_names();
/// The nonlinearity applied elementwise to the bottleneck z.
torch::Tensor apply_adapter_activation(const torch::Tensor& z, AdapterActivation activation);

struct AdapterOptions {
  /* implicit */ AdapterOptions(int64_t bottleneck = 64) : bottleneck_(bottleneck) {}
  TORCH_ARG(int64_t, bottleneck);
  TORCH_ARG(AdapterActivation, activation) = AdapterActivation::kRelu;
  /// Adds the site output y back (y' = y + adapter(y)); without it the adapter replaces y.
  TORCH_ARG(bool, residual) = true;
  /// Weights ~ N(0, init_std²), biases 0 — the reference code's initialisation.
  TORCH_ARG(double, init_std) = 0.02;
  /// Zero the up-projection so the adapter starts as the identity (Houlsby's near-identity start).
  TORCH_ARG(bool, zero_init_up) = false;
  TORCH_ARG(CapaBoostOptions, capaboost) = CapaBoostOptions();
};

class AdapterImpl : public SiteTunerImpl {
 public:
  AdapterImpl(const AdapterOptions& options, std::string site, int64_t features);

  std::string kind() const override { return "adapter"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  TunerParameterCount parameter_count() const override;
  TunerFlops flops_per_token() const override;
  std::vector<torch::Tensor> applied_masks() const override { return stack_.applied_masks(); }

  AdapterOptions options;
  torch::Tensor down;       // (bn, features)
  torch::Tensor down_bias;  // (bn)
  torch::Tensor up;         // (features, bn)
  torch::Tensor up_bias;    // (features)

 private:
  BranchStack stack_;
};
TORCH_MODULE(Adapter);

}  // namespace capaboost
