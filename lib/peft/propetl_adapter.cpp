#include "peft/propetl_adapter.h"

#include "peft/learned_mask.h"

namespace capaboost {

AdapterPrototypeImpl::AdapterPrototypeImpl(int64_t bottleneck, int64_t features) {
  TORCH_CHECK(bottleneck > 0 && features > 0, "adapter prototype: bottleneck and width must be positive, got ",
              bottleneck, " and ", features);
  down = register_parameter("down", torch::randn({bottleneck, features}) * 0.02);
  down_bias = register_parameter("down_bias", torch::zeros({bottleneck}));
  up = register_parameter("up", torch::randn({features, bottleneck}) * 0.02);
  up_bias = register_parameter("up_bias", torch::zeros({features}));
}

ProPetlAdapterImpl::ProPetlAdapterImpl(const ProPetlAdapterOptions& options_, std::string site,
                                       AdapterPrototype prototype, bool owns_prototype)
    : options(options_), prototype_(std::move(prototype)), owns_prototype_(owns_prototype), site_(std::move(site)) {
  TORCH_CHECK(!prototype_.is_empty(), "ProPETL-Adapter at site '", site_, "': null prototype");
  TORCH_CHECK(options.keep() > 0 && options.keep() <= 1, "ProPETL-Adapter at site '", site_,
              "': the kept fraction must be in (0, 1], got ", options.keep());
  if (owns_prototype_) register_module("prototype", prototype_);
  mask_scores_down = register_parameter("mask_scores_down", initial_mask_scores(prototype_->down.sizes()));
  mask_scores_up = register_parameter("mask_scores_up", initial_mask_scores(prototype_->up.sizes()));
}

torch::Tensor ProPetlAdapterImpl::adapt(const torch::Tensor& /*x*/, const torch::Tensor& y) {
  const auto down = prototype_->down * learned_mask(mask_scores_down, options.keep());  // (bn, C)
  const auto up = prototype_->up * learned_mask(mask_scores_up, options.keep());        // (C, bn)
  const auto z = apply_adapter_activation(torch::nn::functional::linear(y, down, prototype_->down_bias),  // (…, bn)
                                          options.activation());
  const auto out = torch::nn::functional::linear(z, up, prototype_->up_bias);  // (…, C)
  return options.residual() ? y + out : out;
}

TunerParameterCount ProPetlAdapterImpl::parameter_count() const {
  int64_t count = mask_scores_down.numel() + mask_scores_up.numel();
  if (owns_prototype_) {
    count += prototype_->down.numel() + prototype_->down_bias.numel() + prototype_->up.numel() +
             prototype_->up_bias.numel();
  }
  return {count, count};
}

TunerFlops ProPetlAdapterImpl::flops_per_token() const {
  const double features = prototype_->up.size(0), bn = prototype_->down.size(0);
  // Biases, activation and (on a projection's output) the residual add.
  const double elementwise = 2.0 * bn + 2.0 * features + (options.residual() ? features : 0.0);
  TunerFlops flops;
  flops.executed = 2.0 * features * bn * 2.0 + elementwise;
  const double kept = static_cast<double>(kept_entries(prototype_->down.numel(), options.keep()) +
                                          kept_entries(prototype_->up.numel(), options.keep()));
  flops.sparse_ideal = 2.0 * kept + elementwise;
  return flops;
}

}  // namespace capaboost
