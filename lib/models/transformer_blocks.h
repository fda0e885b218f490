#pragma once
// Sub-blocks BERT-family encoders share, module for module and name for name as transformers:
// the residual output (BertSelfOutput / BertOutput / DebertaV2Output) and the feed-forward input
// (BertIntermediate). Every linear layer is a TunableLinear site; every residual output is a residual
// site too (sites/residual_site.h: a tuner after its LayerNorm, Pfeiffer's adapter placement).

#include <torch/torch.h>

#include "models/activation.h"
#include "models/parallel_dropout.h"
#include "sites/residual_site.h"
#include "sites/tunable_linear.h"

namespace capaboost {

struct ResidualOutputOptions {
  ResidualOutputOptions(int64_t in_features, int64_t hidden_size)
      : in_features_(in_features), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(double, layer_norm_eps) = 1e-5;
  TORCH_ARG(double, dropout) = 0.1;
};

/// dense → dropout → LayerNorm(· + residual): the output of a sub-block (attention or feed-forward).
/// A residual site named after its `dense`: a tuner attached to it acts after the LayerNorm.
class ResidualOutputImpl : public ResidualSiteImpl {
 public:
  explicit ResidualOutputImpl(const ResidualOutputOptions& options);
  /// x: (B, T, in); residual: (B, T, C) → (B, T, C).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual);

  TunableLinear dense{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "LayerNorm"
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(ResidualOutput);

/// The first half of the feed-forward block: dense → activation.
class IntermediateImpl : public torch::nn::Module {
 public:
  IntermediateImpl(int64_t hidden_size, int64_t intermediate_size, Activation activation);
  /// x: (B, T, C) → (B, T, intermediate_size).
  torch::Tensor forward(const torch::Tensor& x);

  Activation activation;
  TunableLinear dense{nullptr};
};
TORCH_MODULE(Intermediate);

/// Re-draws every parameter below `module` the way transformers' _init_weights do for the BERT family
/// (RoBERTa, DeBERTa-v2) and Llama: linear and embedding weights N(0, initializer_range²), biases 0, the
/// padding row of embeddings with a padding index 0, LayerNorm weight 1 and bias 0 (RMSNorm scales keep
/// their ones). Model constructors call it before any tuner is attached.
void init_transformer_weights(torch::nn::Module& module, double initializer_range);

/// One linear layer drawn as init_transformer_weights draws them: weight N(0, initializer_range²), bias 0.
void init_linear_weights(TunableLinearImpl& linear, double initializer_range);

}  // namespace capaboost
