#pragma once
// A multi-head attention module that key-value tuners can attach to, found by its dotted name like
// a linear site (sites/site_registry.h). Backbones derive their self-attention from it and call
// `tune_key_values` between projecting keys/values and computing scores.

#include <torch/torch.h>

#include "sites/key_value_tuner.h"

namespace capaboost {

class AttentionSiteImpl : public torch::nn::Module {
 public:
  AttentionSiteImpl(int64_t num_heads, int64_t head_size);

  /// Attaches `tuner` as child module `tuner->kind()`; at most one key-value tuner per site.
  void attach(KeyValueTunerPtr tuner);
  /// Removes the tuner.
  void detach();
  const KeyValueTunerPtr& key_value_tuner() const { return tuner_; }

  int64_t num_heads() const { return num_heads_; }
  int64_t head_size() const { return head_size_; }

 protected:
  /// The tuner's extension of `state`, or `state` itself without a tuner.
  KeyValues tune_key_values(KeyValues state);

 private:
  int64_t num_heads_;
  int64_t head_size_;
  KeyValueTunerPtr tuner_;
};

}  // namespace capaboost
