#include "peft/propetl_lora.h"

#include "peft/learned_mask.h"

namespace capaboost {

LoraPrototypeImpl::LoraPrototypeImpl(int64_t rank, int64_t in_features, int64_t out_features, LoraInit init) {
  TORCH_CHECK(rank > 0, "LoRA prototype: rank must be positive, got ", rank);
  A = register_parameter("A", torch::empty({rank, in_features}));
  B = register_parameter("B", torch::zeros({out_features, rank}));
  initialize_lora_a(A, init);
}

ProPetlLoraImpl::ProPetlLoraImpl(const ProPetlLoraOptions& options_, std::string site, LoraPrototype prototype,
                                 bool owns_prototype)
    : options(options_), prototype_(std::move(prototype)), owns_prototype_(owns_prototype), site_(std::move(site)) {
  TORCH_CHECK(!prototype_.is_empty(), "ProPETL-LoRA at site '", site_, "': null prototype");
  TORCH_CHECK(prototype_->A.size(0) == options.rank(), "ProPETL-LoRA at site '", site_, "': the prototype has rank ",
              prototype_->A.size(0), ", the options say ", options.rank());
  TORCH_CHECK(options.keep() > 0 && options.keep() <= 1, "ProPETL-LoRA at site '", site_,
              "': the kept fraction must be in (0, 1], got ", options.keep());
  if (owns_prototype_) register_module("prototype", prototype_);
  mask_scores_A = register_parameter("mask_scores_A", initial_mask_scores(prototype_->A.sizes()));
  mask_scores_B = register_parameter("mask_scores_B", initial_mask_scores(prototype_->B.sizes()));
}

torch::Tensor ProPetlLoraImpl::adapt(const torch::Tensor& x, const torch::Tensor& y) {
  const auto a = prototype_->A * learned_mask(mask_scores_A, options.keep());  // (r, in)
  const auto b = prototype_->B * learned_mask(mask_scores_B, options.keep());  // (out, r)
  const auto h = torch::dropout(x, options.dropout(), is_training());          // (…, in)
  return y + torch::nn::functional::linear(torch::nn::functional::linear(h, a), b) * scale();  // (…, out)
}

std::optional<torch::Tensor> ProPetlLoraImpl::delta_weight() const {
  torch::NoGradGuard no_grad;
  const auto a = (prototype_->A * learned_mask(mask_scores_A, options.keep())).to(torch::kFloat64);
  const auto b = (prototype_->B * learned_mask(mask_scores_B, options.keep())).to(torch::kFloat64);
  return torch::mm(b, a) * scale();  // (out, in)
}

TunerParameterCount ProPetlLoraImpl::parameter_count() const {
  int64_t count = mask_scores_A.numel() + mask_scores_B.numel();
  if (owns_prototype_) count += prototype_->A.numel() + prototype_->B.numel();
  return {count, count};
}

TunerFlops ProPetlLoraImpl::flops_per_token() const {
  const double in = prototype_->A.size(1), out = prototype_->B.size(0), r = options.rank();
  TunerFlops flops;
  flops.executed = 2.0 * in * r + 2.0 * r * out + 2.0 * out;
  const double kept = static_cast<double>(kept_entries(prototype_->A.numel(), options.keep()) +
                                          kept_entries(prototype_->B.numel(), options.keep()));
  flops.sparse_ideal = 2.0 * kept + 2.0 * out;
  return flops;
}

}  // namespace capaboost
