#pragma once
// Parameter groups that more than one method declares: a PEFT module's own shape and scale,
// without site selection or CapaBoost, which each method adds as it takes them. ProPETL's variants
// reuse the groups of the modules they share across layers, so `rank: 32` means the same in a
// `lora` row and a `propetl_lora` row.

#include "params/parameter.h"

namespace capaboost {

/// LoRA's factors: rank, alpha_over_rank, alpha (derived from it when given), lora_dropout, lora_init.
ParameterList lora_factor_parameters();

/// A bottleneck adapter's shape: bottleneck, activation.
ParameterList adapter_shape_parameters();

/// A prefix's shape: prefix_length, prefix_mlp_hidden.
ParameterList prefix_shape_parameters();

}  // namespace capaboost
