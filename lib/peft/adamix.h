#pragma once
// AdaMix (Wang et al., 2022) on a bottleneck adapter: a mixture of adaptation experts,
//   training:  y' = y + Up_j f(Down_i y + b_i) + c_j,  i, j drawn uniformly per forward call and site;
//   inference: the experts' weights averaged into one adapter (adaptation merging).
// As the released code (microsoft/AdaMix): M down-projection experts and, by default, one shared
// up-projection ("adaptation module sharing"), weights ~ N(0, 0.02²), biases 0; the consistency
// regulariser between two stochastic routes is the method's training hook (peft/adamix_method.cpp).

#include <torch/torch.h>

#include <string>

#include "peft/adapter.h"
#include "sites/site_tuner.h"

namespace capaboost {

struct AdaMixOptions {
  /* implicit */ AdaMixOptions(int64_t bottleneck = 8) : bottleneck_(bottleneck) {}
  TORCH_ARG(int64_t, bottleneck);
  /// M, the number of down-projection experts.
  TORCH_ARG(int64_t, experts) = 4;
  /// One up-projection shared by all experts (the released code's setting); else M of them.
  TORCH_ARG(bool, share_up) = true;
  TORCH_ARG(AdapterActivation, activation) = AdapterActivation::kGelu;
  /// Add y back (y + A(y): on a projection's output), or return A(y) alone (after a block's LayerNorm,
  /// whose residual site adds the sum itself: peft/adapter_placement.h).
  TORCH_ARG(bool, residual) = true;
};

class AdaMixImpl : public SiteTunerImpl {
 public:
  AdaMixImpl(const AdaMixOptions& options, std::string site, int64_t features);

  std::string kind() const override { return "adamix"; }
  /// Training: one routed expert pair (a fresh uniform draw per call); evaluation: the averaged adapter.
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  /// dense: every expert (what trains); effective: one merged adapter (what inference keeps), the
  /// count AdaMix reports as equal to its underlying adapter's.
  TunerParameterCount parameter_count() const override;
  /// One adapter's FLOPs: a routed pair in training, the merged adapter at inference.
  TunerFlops flops_per_token() const override;

  torch::Tensor down;       // (M, bn, C)
  torch::Tensor down_bias;  // (M, bn)
  torch::Tensor up;         // (M_up, C, bn), M_up = 1 when shared
  torch::Tensor up_bias;    // (M_up, C)
  AdaMixOptions options;

 private:
  std::string site_;
};
TORCH_MODULE(AdaMix);

}  // namespace capaboost
