#include "measure/flop_count.h"

#include "sites/site_registry.h"

namespace capaboost {

std::vector<SiteFlops> site_flops(torch::nn::Module& model) {
  std::vector<SiteFlops> flops;
  for (auto& [name, site] : find_sites(model)) {
    SiteFlops entry{name, site->base_flops_per_token(), {}};
    if (site->tuner()) entry.tuner = site->tuner()->flops_per_token();
    flops.push_back(entry);
  }
  // A tuner after a block's LayerNorm adds its own FLOPs and the site's (the add and the second
  // LayerNorm) to a place with no linear layer of its own.
  for (auto& [name, site] : find_residual_sites(model)) {
    if (!site->tuner()) continue;
    SiteFlops entry{name, 0.0, site->tuner()->flops_per_token()};
    entry.tuner.executed += site->tuning_flops_per_token();
    entry.tuner.sparse_ideal += site->tuning_flops_per_token();
    flops.push_back(entry);
  }
  return flops;
}

double tuned_flops_factor(const std::vector<SiteFlops>& flops) {
  double base = 0, tuned = 0;
  for (const auto& f : flops) {
    base += f.base;
    tuned += f.base + f.tuner.executed;
  }
  return base > 0 ? tuned / base : 1.0;
}

}  // namespace capaboost
