#include "sites/tunable_linear.h"

#include "runtime/autocast_compat.h"


#include <cmath>

namespace capaboost {

TunableLinearImpl::TunableLinearImpl(const TunableLinearOptions& options_) : options(options_) {
  TORCH_CHECK(options.in_features() > 0 && options.out_features() > 0,
              "TunableLinear: features must be positive, got in=", options.in_features(),
              " out=", options.out_features());
  reset();
}

void TunableLinearImpl::reset() {
  weight = register_parameter("weight", torch::empty({options.out_features(), options.in_features()}));
  bias =
      options.bias() ? register_parameter("bias", torch::empty({options.out_features()})) : torch::Tensor();
  // torch::nn::Linear's initialisation, so a randomly initialised backbone behaves like PyTorch's.
  torch::NoGradGuard no_grad;
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(options.in_features()));
    bias.uniform_(-bound, bound);
  }
}

const torch::Tensor& TunableLinearImpl::product_weight() {
  const auto device = weight.device().type();
  if (!runtime::autocast_enabled(device) || weight.requires_grad() || weight.scalar_type() != torch::kFloat) {
    return weight;
  }
  // A frozen RoBERTa-base backbone is 85M weights: casting them every step is ~10% of a bf16 LoRA step.
  // The version counter catches in-place changes (loading, merge), the impl pointer a replaced tensor.
  const auto dtype = runtime::autocast_dtype(device);
  if (!lowp_weight_.defined() || lowp_weight_.scalar_type() != dtype || lowp_source_ != weight.unsafeGetTensorImpl() ||
      lowp_version_ != static_cast<int64_t>(weight._version())) {
    torch::NoGradGuard no_grad;
    lowp_weight_ = weight.to(dtype);
    lowp_source_ = weight.unsafeGetTensorImpl();
    lowp_version_ = static_cast<int64_t>(weight._version());
  }
  return lowp_weight_;
}

torch::Tensor TunableLinearImpl::forward(const torch::Tensor& x) {
  auto y = torch::nn::functional::linear(x, product_weight(), bias);  // (…, out)
  if (tuner_ && !merged_) y = tuner_->adapt(x, y);
  return y;
}

void TunableLinearImpl::attach(SiteTunerPtr tuner) { attach_tuner(*this, tuner_, std::move(tuner), "TunableLinear"); }

void TunableLinearImpl::detach() {
  if (tuner_ && merged_) unmerge();
  detach_tuner(*this, tuner_);
}

void TunableLinearImpl::merge() {
  TORCH_CHECK(tuner_, "TunableLinear::merge: no tuner attached");
  TORCH_CHECK(!merged_, "TunableLinear::merge: already merged");
  auto delta = tuner_->delta_weight();
  TORCH_CHECK(delta.has_value(), "TunableLinear::merge: a '", tuner_->kind(),
              "' tuner is not a linear weight update and cannot be merged");
  torch::NoGradGuard no_grad;
  // Sum in float64, round once: the merged weight is the correctly rounded W + ΔW.
  weight.copy_(weight.to(torch::kFloat64) + *delta);
  merged_ = true;
}

void TunableLinearImpl::unmerge() {
  TORCH_CHECK(merged_, "TunableLinear::unmerge: not merged");
  torch::NoGradGuard no_grad;
  weight.copy_(weight.to(torch::kFloat64) - *tuner_->delta_weight());
  merged_ = false;
}

double TunableLinearImpl::base_flops_per_token() const {
  const double in = options.in_features(), out = options.out_features();
  return 2.0 * in * out + (options.bias() ? out : 0.0);
}

}  // namespace capaboost
