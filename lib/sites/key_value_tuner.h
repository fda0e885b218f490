#pragma once
// The extension point for methods that act on attention's keys and values (prefix tuning): an
// attention site hands its per-head keys, values and additive mask to its tuner before the scores
// are computed, and attends over whatever the tuner returns.

#include <torch/torch.h>

#include "sites/tuner.h"

namespace capaboost {

/// One attention call's keys and values as a key-value tuner sees them.
struct KeyValues {
  torch::Tensor keys;    // (B, H, T, d)
  torch::Tensor values;  // (B, H, T, d)
  /// Additive mask over the key positions: (B, 1, 1 or Tq, T), 0 to attend and a large negative
  /// number to skip; undefined when every position is attended.
  torch::Tensor mask;
};

/// A tuner on an attention site's keys and values. `extend` may add key/value positions (prefix
/// tuning prepends l learned ones per head); it must extend the mask along the key axis to match, and
/// may leave an undefined mask undefined when every added position is attended.
class KeyValueTunerImpl : public TunerImpl {
 public:
  virtual KeyValues extend(KeyValues state) = 0;
};

using KeyValueTunerPtr = std::shared_ptr<KeyValueTunerImpl>;

}  // namespace capaboost
