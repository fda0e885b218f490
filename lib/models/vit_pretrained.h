#pragma once
// ViT checkpoints in the Hugging Face layout: a directory with config.json and model.safetensors —
// ViTForImageClassification checkpoints, and bare ViTModel ones such as the ImageNet-21k
// google/vit-base-patch16-224-in21k that Table 5 starts from.
//
//   auto [model, report] = load_vit_for_image_classification("checkpoints/vit-base-patch16-224-in21k", 10);

#include <torch/torch.h>

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/pretrained_directory.h"
#include "models/vit.h"

namespace capaboost {

/// How checkpoint names map onto ViT modules, as transformers' from_pretrained does it: the `vit.`
/// base prefix is added or removed as needed; a pooler (`pooler.*`, which bare ViTModel checkpoints
/// carry), a classifier the model lacks and ViTForMaskedImageModeling's mask token and decoder (the
/// suite's own pre-trained `mini-vit`) are accepted and listed as unexpected. With
/// `head_missing_ok` the classifier may be missing (a pre-trained encoder: it keeps its fresh
/// initialisation and is listed as missing). Anything else missing or unexpected is an error.
StateDictLoadOptions vit_load_options(bool head_missing_ok);

/// ViTForImageClassification from `dir`. `num_labels` overrides the config (a new classifier for a new
/// task; label names reset to LABEL_<i> when the count changes).
Pretrained<VitForImageClassification> load_vit_for_image_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// Writes config.json and model.safetensors into `dir` in the layout transformers reads with
/// from_pretrained; tuner parameters are left out unless `include_tuners`.
void save_pretrained(VitForImageClassificationImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
