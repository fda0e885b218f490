#include "models/rms_norm.h"

namespace capaboost {

RMSNormImpl::RMSNormImpl(const RMSNormOptions& options) : options(options) {
  TORCH_CHECK(options.features() > 0, "RMSNorm: features must be positive, got ", options.features());
  TORCH_CHECK(options.eps() > 0.0, "RMSNorm: eps must be positive, got ", options.eps());
  weight = register_parameter("weight", torch::ones({options.features()}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.size(-1) == options.features(), "RMSNorm: input has ", x.size(-1), " features, expected ",
              options.features());
  // transformers normalises in float32 and casts back before the scale, so a bf16 run rounds where its
  // reference does.
  const auto x32 = x.to(torch::kFloat);
  const auto variance = x32.pow(2).mean(-1, /*keepdim=*/true);
  return weight * (x32 * torch::rsqrt(variance + options.eps())).to(x.scalar_type());
}

}  // namespace capaboost
