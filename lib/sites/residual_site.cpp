#include "sites/residual_site.h"

namespace capaboost {

ResidualSiteImpl::ResidualSiteImpl(int64_t features, std::string projection)
    : features_(features), projection_(std::move(projection)) {
  TORCH_CHECK(features > 0, "ResidualSite: features must be positive, got ", features);
}

void ResidualSiteImpl::attach(SiteTunerPtr tuner) { attach_tuner(*this, tuner_, std::move(tuner), "ResidualSite"); }

void ResidualSiteImpl::detach() { detach_tuner(*this, tuner_); }

double ResidualSiteImpl::tuning_flops_per_token() const { return tuner_ ? 8.0 * static_cast<double>(features_) : 0.0; }

torch::Tensor ResidualSiteImpl::normalise(const torch::Tensor& sum, torch::nn::LayerNormImpl& layer_norm) {
  auto normed = layer_norm.forward(sum);  // (B, T, C)
  if (!tuner_) return normed;
  const auto correction = tuner_->adapt(normed, normed);  // (B, T, C)
  TORCH_CHECK(correction.sizes() == sum.sizes(), "residual-site tuner '", tuner_->kind(), "' returned ",
              correction.sizes(), " for a block output of ", sum.sizes());
  return layer_norm.forward(sum + correction);
}

}  // namespace capaboost
