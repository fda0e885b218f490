#include "models/transformer_blocks.h"

#include "models/dropout_residual_layer_norm.h"

namespace capaboost {

ResidualOutputImpl::ResidualOutputImpl(const ResidualOutputOptions& options)
    : ResidualSiteImpl(options.hidden_size(), "dense") {
  dense = register_module("dense", TunableLinear(options.in_features(), options.hidden_size()));
  layer_norm = register_module(
      "LayerNorm",
      torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps())));
  dropout = register_module("dropout", ParallelDropout(options.dropout()));
}

torch::Tensor ResidualOutputImpl::forward(const torch::Tensor& x, const torch::Tensor& residual) {
  const auto h = dense->forward(x);  // (B, T, C)
  // A tuner after the LayerNorm needs the sum itself, which the fused kernel does not return.
  if (tuner()) return normalise(dropout->forward(h) + residual, *layer_norm);
  // One pass over the rows instead of three operators where the fused kernel applies (float32 on the CPU,
  // outside autocast) and pays: when it drops, or in evaluation. Without dropout but with gradients the
  // unfused backward is cheaper (the sum's gradient passes to both inputs as it is;
  // bench/fused_kernels_bench.cpp).
  const bool drop = dropout->is_training() && dropout->options.p() > 0;
  if ((drop || !torch::GradMode::is_enabled()) &&
      dropout_residual_layer_norm_applies(h, residual, layer_norm->weight, layer_norm->bias)) {
    // The same seed draw ParallelDropout makes: the run's later masks stay where they were.
    const uint64_t seed = drop ? next_dropout_seed() : 0;
    return dropout_residual_layer_norm(h, residual, drop ? dropout->options.p() : 0.0, seed, layer_norm->weight,
                                       layer_norm->bias, layer_norm->options.eps());
  }
  return layer_norm->forward(dropout->forward(h) + residual);
}

IntermediateImpl::IntermediateImpl(int64_t hidden_size, int64_t intermediate_size, Activation activation_)
    : activation(activation_) {
  dense = register_module("dense", TunableLinear(hidden_size, intermediate_size));
}

torch::Tensor IntermediateImpl::forward(const torch::Tensor& x) { return activate(activation, dense->forward(x)); }

void init_linear_weights(TunableLinearImpl& linear, double initializer_range) {
  torch::NoGradGuard no_grad;
  linear.weight.normal_(0.0, initializer_range);
  if (linear.bias.defined()) linear.bias.zero_();
}

void init_transformer_weights(torch::nn::Module& module, double initializer_range) {
  torch::NoGradGuard no_grad;
  // include_self=false: constructors call this before the module is owned by a shared_ptr.
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    auto* child = item.value().get();
    if (auto* linear = dynamic_cast<TunableLinearImpl*>(child)) {
      init_linear_weights(*linear, initializer_range);
    } else if (auto* embedding = dynamic_cast<torch::nn::EmbeddingImpl*>(child)) {
      embedding->weight.normal_(0.0, initializer_range);
      if (auto pad = embedding->options.padding_idx()) embedding->weight[*pad].zero_();
    } else if (auto* norm = dynamic_cast<torch::nn::LayerNormImpl*>(child)) {
      norm->weight.fill_(1.0);
      norm->bias.zero_();
    }
  }
}

}  // namespace capaboost
