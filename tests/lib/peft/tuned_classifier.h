#pragma once
// A two-layer deterministic tiny classifier (tests/lib/train/tiny_classifier.h) with a method attached
// through its registry, as a run attaches it, and its eval-mode logits: the model that tuned-state and
// export tests train, save and rebuild.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <string>

#include "lib/train/tiny_classifier.h"
#include "peft/method_registry.h"
#include "train/trainable_selection.h"

namespace capaboost::testing {

/// The classifier built from torch seed `seed`, with `method_name` attached as `config` says and the
/// backbone frozen as the method wants; no method when `method_name` is empty.
inline RobertaForSequenceClassification tuned_classifier(const std::string& method_name, const nlohmann::json& config,
                                                         uint64_t seed) {
  torch::manual_seed(seed);
  auto model = tiny_deterministic_classifier(2);
  if (!method_name.empty()) {
    const MethodSpec& method = find_method(method_name);
    method.attach(*model, resolve_or_throw(method.parameters, config, "method " + method_name));
    select_trainable_parameters(*model, method.trains_backbone_parameter, model->head_prefixes());
  }
  return model;
}

/// Logits (B, 2) of `ids` (B, T) in eval mode, without gradients.
inline torch::Tensor eval_logits(RobertaForSequenceClassification& model, const torch::Tensor& ids) {
  model->eval();
  torch::NoGradGuard no_grad;
  return model->forward(ids).logits;
}

}  // namespace capaboost::testing
