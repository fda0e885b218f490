#include "peft/adalora.h"

namespace capaboost {

AdaLoraImpl::AdaLoraImpl(const AdaLoraOptions& options_, std::string site, int64_t in_features, int64_t out_features)
    : options(options_), site_(std::move(site)) {
  TORCH_CHECK(options.initial_rank() > 0 && options.target_rank() > 0 && options.target_rank() <= options.initial_rank(),
              "AdaLoRA at site '", site_, "': need 0 < target_rank <= initial_rank, got target ", options.target_rank(),
              " and initial ", options.initial_rank());
  TORCH_CHECK(options.dropout() >= 0.0 && options.dropout() < 1.0, "AdaLoRA at site '", site_,
              "': dropout must be in [0, 1), got ", options.dropout());
  const int64_t r = options.initial_rank();
  // PEFT's initialisation: P and Q ~ N(0, 0.02²), λ = 0.
  lora_A = register_parameter("lora_A", torch::randn({r, in_features}) * 0.02);
  lora_E = register_parameter("lora_E", torch::zeros({r, 1}));
  lora_B = register_parameter("lora_B", torch::randn({out_features, r}) * 0.02);
}

torch::Tensor AdaLoraImpl::adapt(const torch::Tensor& x, const torch::Tensor& y) {
  const auto h = torch::dropout(x, options.dropout(), is_training());          // (…, in)
  const auto low = torch::nn::functional::linear(h, lora_A * lora_E);          // (…, r)
  return y + torch::nn::functional::linear(low, lora_B) * scale();             // (…, out)
}

std::optional<torch::Tensor> AdaLoraImpl::delta_weight() const {
  torch::NoGradGuard no_grad;
  return torch::mm(lora_B.to(torch::kFloat64), (lora_A * lora_E).to(torch::kFloat64)) * scale();  // (out, in)
}

TunerParameterCount AdaLoraImpl::parameter_count() const {
  const int64_t per_rank = lora_A.size(1) + lora_B.size(0) + 1;
  return {options.initial_rank() * per_rank, options.target_rank() * per_rank};
}

TunerFlops AdaLoraImpl::flops_per_token() const {
  const double in = lora_A.size(1), out = lora_B.size(0);
  const auto at_rank = [&](double r) { return 2.0 * in * r + 2.0 * r * out + 2.0 * out; };
  TunerFlops flops;
  flops.executed = at_rank(static_cast<double>(options.initial_rank()));
  flops.sparse_ideal = at_rank(static_cast<double>(options.target_rank()));
  return flops;
}

int64_t AdaLoraImpl::active_rank() const { return lora_E.ne(0).sum().item<int64_t>(); }

}  // namespace capaboost
