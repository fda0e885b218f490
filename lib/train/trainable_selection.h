#pragma once
// Which parameters train in a run: the attached tuners and the task head always, and the backbone
// parameters a method names (none for PEFT, all for full fine-tuning, the biases for BitFit —
// MethodSpec::trains_backbone_parameter).

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

namespace capaboost {

/// Decides, by dotted parameter name, whether a backbone parameter trains.
using BackboneParameterRule = std::function<bool(const std::string& parameter_name)>;

/// Sets requires_grad on every parameter of `model`: true for tuner parameters, for names starting
/// with one of `head_prefixes` (e.g. "classifier.") and where `trains_backbone_parameter` (may be
/// null: none) says so. Returns the number of trainable parameters; fails when it is zero (a typo in
/// a method or head prefix must not train nothing).
int64_t select_trainable_parameters(torch::nn::Module& model, const BackboneParameterRule& trains_backbone_parameter,
                                    const std::vector<std::string>& head_prefixes);

}  // namespace capaboost
