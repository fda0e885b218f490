#include "peft/propetl_prefix.h"

#include "peft/learned_mask.h"

namespace capaboost {

ProPetlPrefixImpl::ProPetlPrefixImpl(const ProPetlPrefixOptions& options_, std::string site, PrefixEncoder prototype,
                                     bool owns_prototype, int64_t num_heads, int64_t head_size)
    : options(options_),
      prototype_(std::move(prototype)),
      owns_prototype_(owns_prototype),
      site_(std::move(site)),
      num_heads_(num_heads),
      head_size_(head_size) {
  TORCH_CHECK(!prototype_.is_empty() && prototype_->layers() == 1, "ProPETL-Prefix at site '", site_,
              "': the prototype must be a prefix encoder serving one layer");
  const int64_t length = prototype_->embedding.size(0), width = prototype_->embedding.size(1);
  TORCH_CHECK(width == num_heads * head_size, "ProPETL-Prefix at site '", site_, "': the prototype's width ", width,
              " differs from the attention site's ", num_heads, " heads × ", head_size);
  TORCH_CHECK(options.keep() > 0 && options.keep() <= 1, "ProPETL-Prefix at site '", site_,
              "': the kept fraction must be in (0, 1], got ", options.keep());
  if (owns_prototype_) register_module("prototype", prototype_);
  mask_scores = register_parameter("mask_scores", initial_mask_scores({length, 2 * width}, options.score_fan_in()));
}

std::pair<torch::Tensor, torch::Tensor> ProPetlPrefixImpl::masked_prefix() {
  const auto masked = prototype_->layer_prefix(0) * learned_mask(mask_scores, options.keep());  // (l, 2C)
  const int64_t width = num_heads_ * head_size_;
  return {masked.narrow(1, 0, width), masked.narrow(1, width, width)};
}

KeyValues ProPetlPrefixImpl::extend(KeyValues state) {
  auto [keys, values] = masked_prefix();
  return prepend_prefix(std::move(state), keys, values, num_heads_, head_size_);
}

TunerParameterCount ProPetlPrefixImpl::parameter_count() const {
  // The prototype counts as the prefix it generates (l·2C), the same convention as prefix tuning's.
  const int64_t count = mask_scores.numel() * (owns_prototype_ ? 2 : 1);
  return {count, count};
}

}  // namespace capaboost
