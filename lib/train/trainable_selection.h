#pragma once
// Which parameters train in a run: the attached tuners and the head (PEFT), everything (full
// fine-tuning) or the biases and the head (BitFit) — MethodSpec::trained names the choice.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "peft/method_registry.h"

namespace capaboost {

/// Sets requires_grad on every parameter of `model` for `trained`. Names starting with one of
/// `head_prefixes` (e.g. "classifier.") count as the task head. Returns the number of trainable
/// parameters; fails when it is zero (a typo in a method or head prefix must not train nothing).
int64_t select_trainable_parameters(torch::nn::Module& model, TrainedParameters trained,
                                    const std::vector<std::string>& head_prefixes);

}  // namespace capaboost
