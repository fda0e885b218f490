#pragma once
// Analytic forward FLOPs per token at each linear site, with and without its tuner.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "sites/site_tuner.h"

namespace capaboost {

struct SiteFlops {
  std::string site;
  double base = 0;   ///< the frozen linear layer: 2·in·out (+ out for the bias)
  TunerFlops tuner;  ///< what the tuner adds (zero without one)
};

/// FLOPs per token at every site of `model`, in site order.
std::vector<SiteFlops> site_flops(torch::nn::Module& model);

/// Sum over sites of base + executed tuner FLOPs, divided by the base sum: the training-time cost
/// factor of the tuners on the linear sites.
double tuned_flops_factor(const std::vector<SiteFlops>& flops);

}  // namespace capaboost
