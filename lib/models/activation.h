#pragma once
// The feed-forward activations Hugging Face configs name in `hidden_act`.

#include <torch/torch.h>

#include <string>

namespace capaboost {

enum class Activation {
  kGelu,     ///< "gelu": exact GELU, x·Φ(x) with the erf (transformers' GELUActivation)
  kGeluNew,  ///< "gelu_new": the tanh approximation (transformers' NewGELUActivation, GPT-2's)
  kRelu,     ///< "relu"
  kTanh,     ///< "tanh" (DeBERTa-v2's convolution layer, conv_act)
};

/// Parses a `hidden_act` value; throws listing the supported names.
Activation parse_activation(const std::string& name);
std::string to_string(Activation activation);

/// Applies the activation elementwise.
torch::Tensor activate(Activation activation, const torch::Tensor& x);

}  // namespace capaboost
