#pragma once
// The Hugging Face model-directory layout every architecture of the suite reads and writes:
// config.json beside model.safetensors.

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint/safetensors.h"
#include "checkpoint/state_dict.h"

namespace capaboost {

/// File names inside a Hugging Face model directory.
inline constexpr const char* kConfigFileName = "config.json";
inline constexpr const char* kWeightsFileName = "model.safetensors";

/// A model built from a checkpoint, with what was matched.
template <typename Model>
struct Pretrained {
  Model model;
  LoadReport report;
};

/// `dir`/config.json (existence is checked by the config reader, which names the file).
std::string config_file(const std::string& dir);

/// `dir`/model.safetensors, opened. When only a PyTorch pickle (pytorch_model.bin) is there, the error
/// says how to convert it: the suite reads safetensors only.
SafetensorsFile open_weights(const std::string& dir);

/// Writes model.safetensors, then config.json, into `dir` (created if needed): names as the module's
/// state dict, "format": "pt" metadata; tuner parameters left out unless `include_tuners`. Weights
/// first, so a directory whose config.json is new always has matching weights beside it.
void save_model_directory(torch::nn::Module& model, const nlohmann::json& config, const std::string& dir,
                          bool include_tuners);

}  // namespace capaboost
