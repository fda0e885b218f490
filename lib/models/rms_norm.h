#pragma once
// Root-mean-square layer normalisation (Zhang & Sennrich, 2019) as transformers' LlamaRMSNorm computes
// it: x / sqrt(mean(x²) + eps) in float32 whatever x's dtype, cast back, times a learned scale `weight`
// (no centring, no bias).
//
//   RMSNorm norm(RMSNormOptions(576).eps(1e-5));
//   torch::Tensor y = norm(x);   // x: (…, 576) → (…, 576)

#include <torch/torch.h>

namespace capaboost {

struct RMSNormOptions {
  explicit RMSNormOptions(int64_t features) : features_(features) {}
  TORCH_ARG(int64_t, features);
  TORCH_ARG(double, eps) = 1e-6;
};

class RMSNormImpl : public torch::nn::Module {
 public:
  explicit RMSNormImpl(const RMSNormOptions& options);
  /// x: (…, features) → (…, features) in x's dtype.
  torch::Tensor forward(const torch::Tensor& x);

  RMSNormOptions options;
  torch::Tensor weight;  // (features), initialised to ones
};
TORCH_MODULE(RMSNorm);

}  // namespace capaboost
