#include "peft/adapter.h"

namespace capaboost {

AdapterActivation parse_adapter_activation(const std::string& name) {
  if (name == "relu") return AdapterActivation::kRelu;
  if (name == "gelu") return AdapterActivation::kGelu;
  if (name == "swish" || name == "silu") return AdapterActivation::kSwish;
  TORCH_CHECK(false, "unknown adapter activation '", name, "'; choose relu, gelu or swish");
}

std::string to_string(AdapterActivation activation) {
  switch (activation) {
    case AdapterActivation::kRelu:
      return "relu";
    case AdapterActivation::kGelu:
      return "gelu";
    case AdapterActivation::kSwish:
      return "swish";
  }
  return "?";
}

std::vector<std::string> adapter_activation_names() {
  return {to_string(AdapterActivation::kRelu), to_string(AdapterActivation::kGelu), to_string(AdapterActivation::kSwish)};
}

torch::Tensor apply_adapter_activation(const torch::Tensor& z, AdapterActivation activation) {
  switch (activation) {
    case AdapterActivation::kRelu:
      return torch::relu(z);
    case AdapterActivation::kGelu:
      return torch::gelu(z);
    case AdapterActivation::kSwish:
      return torch::silu(z);
  }
  TORCH_CHECK(false, "unknown adapter activation");
}

AdapterImpl::AdapterImpl(const AdapterOptions& options_, std::string site, int64_t features)
    : options(options_), stack_(options_.capaboost(), std::move(site)) {
  TORCH_CHECK(options.bottleneck() > 0, "adapter at site '", stack_.site(),
              "': bottleneck must be positive, got ", options.bottleneck());
  down = register_parameter("down", torch::empty({options.bottleneck(), features}));
  down_bias = register_parameter("down_bias", torch::zeros({options.bottleneck()}));
  up = register_parameter("up", torch::empty({features, options.bottleneck()}));
  up_bias = register_parameter("up_bias", torch::zeros({features}));
  torch::NoGradGuard no_grad;
  down.normal_(0.0, options.init_std());
  if (options.zero_init_up()) {
    up.zero_();
  } else {
    up.normal_(0.0, options.init_std());
  }
}

torch::Tensor AdapterImpl::adapt(const torch::Tensor& /*x*/, const torch::Tensor& y) {
  const bool training = is_training();
  if (training) stack_.next_step();
  auto down_cat = stack_.stack("down", down, /*branch_dim=*/0, training);  // (d·bn, features)
  auto up_cat = stack_.stack("up", up, /*branch_dim=*/1, training);        // (features, d·bn)
  // The shared down bias feeds every branch: repeat it over the d bottleneck blocks.
  auto bias_cat = down_bias.repeat({stack_.branches()});          // (d·bn)
  const auto z = apply_adapter_activation(torch::nn::functional::linear(y, down_cat, bias_cat),  // (…, d·bn)
                                          options.activation());
  auto out = torch::nn::functional::linear(z, up_cat, up_bias);  // (…, features)
  return options.residual() ? y + out : out;
}

TunerParameterCount AdapterImpl::parameter_count() const {
  const int64_t biases = down_bias.numel() + up_bias.numel();
  return {down.numel() + up.numel() + biases,
          stack_.effective_count("down", down.sizes()) + stack_.effective_count("up", up.sizes()) + biases};
}

TunerFlops AdapterImpl::flops_per_token() const {
  const double features = up.size(0), bn = down.size(0), d = stack_.branches();
  // Down GEMM + bias, activation (1 per unit), up GEMM + bias, residual add.
  const double elementwise = 2.0 * d * bn + 2.0 * features + (options.residual() ? features : 0.0);
  TunerFlops flops;
  flops.executed = 2.0 * features * d * bn * 2.0 + elementwise;
  const double kept =
      static_cast<double>(stack_.kept_per_branch("down", down.sizes()) + stack_.kept_per_branch("up", up.sizes()));
  flops.sparse_ideal = 2.0 * d * kept + elementwise;
  return flops;
}

}  // namespace capaboost
