#include "peft/adamix.h"

namespace capaboost {

AdaMixImpl::AdaMixImpl(const AdaMixOptions& options_, std::string site, int64_t features)
    : options(options_), site_(std::move(site)) {
  TORCH_CHECK(options.bottleneck() > 0 && options.experts() > 0, "AdaMix at site '", site_,
              "': bottleneck and experts must be positive, got ", options.bottleneck(), " and ", options.experts());
  const int64_t m = options.experts(), m_up = options.share_up() ? 1 : m, bn = options.bottleneck();
  down = register_parameter("down", torch::randn({m, bn, features}) * 0.02);
  down_bias = register_parameter("down_bias", torch::zeros({m, bn}));
  up = register_parameter("up", torch::randn({m_up, features, bn}) * 0.02);
  up_bias = register_parameter("up_bias", torch::zeros({m_up, features}));
}

torch::Tensor AdaMixImpl::adapt(const torch::Tensor& /*x*/, const torch::Tensor& y) {
  torch::Tensor w_down, b_down, w_up, b_up;
  if (is_training()) {
    // Stochastic routing: down and up experts drawn independently, for the whole batch, from the run's
    // generator (seeded by the run seed), as the reference draws once per forward call.
    const int64_t i = torch::randint(down.size(0), {1}).item<int64_t>();
    const int64_t j = torch::randint(up.size(0), {1}).item<int64_t>();
    w_down = down[i];
    b_down = down_bias[i];
    w_up = up[j];
    b_up = up_bias[j];
  } else {
    // Adaptation merging: uniform averages of the experts' weights and biases.
    w_down = down.mean(0);
    b_down = down_bias.mean(0);
    w_up = up.mean(0);
    b_up = up_bias.mean(0);
  }
  const auto z = apply_adapter_activation(torch::nn::functional::linear(y, w_down, b_down), options.activation());  // (…, bn)
  const auto out = torch::nn::functional::linear(z, w_up, b_up);  // (…, C)
  return options.residual() ? y + out : out;
}

TunerParameterCount AdaMixImpl::parameter_count() const {
  const int64_t stored = down.numel() + down_bias.numel() + up.numel() + up_bias.numel();
  const int64_t merged = down.numel() / down.size(0) + down_bias.size(1) + up.numel() / up.size(0) + up_bias.size(1);
  return {stored, merged};
}

TunerFlops AdaMixImpl::flops_per_token() const {
  const double features = up.size(1), bn = down.size(1);
  TunerFlops flops;
  // Two GEMMs; biases, activation and (on a projection's output) the residual add, per unit.
  flops.executed = 2.0 * features * bn * 2.0 + 2.0 * bn + 2.0 * features + (options.residual() ? features : 0.0);
  flops.sparse_ideal = flops.executed;
  return flops;
}

}  // namespace capaboost
