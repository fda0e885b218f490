#include "sites/attention_site.h"

namespace capaboost {

AttentionSiteImpl::AttentionSiteImpl(int64_t num_heads, int64_t head_size)
    : num_heads_(num_heads), head_size_(head_size) {
  TORCH_CHECK(num_heads > 0 && head_size > 0, "AttentionSite: heads and head size must be positive, got ",
              num_heads, " and ", head_size);
}

void AttentionSiteImpl::attach(KeyValueTunerPtr tuner) { attach_tuner(*this, tuner_, std::move(tuner), "AttentionSite"); }

void AttentionSiteImpl::detach() { detach_tuner(*this, tuner_); }

KeyValues AttentionSiteImpl::tune_key_values(KeyValues state) {
  if (!tuner_) return state;
  const int64_t batch = state.keys.size(0), heads = state.keys.size(1), size = state.keys.size(3);
  KeyValues tuned = tuner_->extend(std::move(state));
  // The contract attention relies on: same batch and heads, matching key/value lengths and mask.
  TORCH_CHECK(tuned.keys.dim() == 4 && tuned.keys.size(0) == batch && tuned.keys.size(1) == heads &&
                  tuned.keys.size(3) == size && tuned.values.sizes() == tuned.keys.sizes(),
              "key-value tuner '", tuner_->kind(), "' returned keys ", tuned.keys.sizes(), " and values ",
              tuned.values.sizes(), "; expected (", batch, ", ", heads, ", T', ", size, ") for both");
  TORCH_CHECK(!tuned.mask.defined() || tuned.mask.size(-1) == tuned.keys.size(2), "key-value tuner '",
              tuner_->kind(), "' returned ", tuned.keys.size(2), " key positions but a mask over ",
              tuned.mask.size(-1));
  return tuned;
}

}  // namespace capaboost
