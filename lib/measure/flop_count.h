#pragma once
// Analytic forward FLOPs per token at each linear site, with and without its tuner, and of the tuners
// after residual blocks' LayerNorms (sites/residual_site.h).

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

/// FLOPs per token at every linear site of `model`, in site order, then at every residual site that
/// carries a tuner (base 0: no frozen layer of its own; the tuner's FLOPs include the site's add and
/// second LayerNorm).
std::vector<SiteFlops> site_flops(torch::nn::Module& model);

/// Sum over sites of base + executed tuner FLOPs, divided by the base sum: the training-time cost
/// factor of the tuners on the linear sites.
double tuned_flops_factor(const std::vector<SiteFlops>& flops);

}  // namespace capaboost
