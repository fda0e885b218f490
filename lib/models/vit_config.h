#pragma once
// The Vision Transformer's hyper-parameters (transformers' ViTConfig) and their `config.json` form.

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/activation.h"
#include "models/classification_loss.h"

namespace capaboost {

/// Field names and meanings are transformers' ViTConfig; defaults are ViT-B/16 at 224×224
/// (google/vit-base-patch16-224-in21k's config.json).
struct VitOptions {
  TORCH_ARG(int64_t, hidden_size) = 768;
  TORCH_ARG(int64_t, num_hidden_layers) = 12;
  TORCH_ARG(int64_t, num_attention_heads) = 12;
  TORCH_ARG(int64_t, intermediate_size) = 3072;
  TORCH_ARG(Activation, hidden_act) = Activation::kGelu;
  TORCH_ARG(double, hidden_dropout_prob) = 0.0;
  TORCH_ARG(double, attention_probs_dropout_prob) = 0.0;
  TORCH_ARG(double, initializer_range) = 0.02;
  TORCH_ARG(double, layer_norm_eps) = 1e-12;
  /// Side of the square images the position table is laid out for; other sizes interpolate it.
  TORCH_ARG(int64_t, image_size) = 224;
  TORCH_ARG(int64_t, patch_size) = 16;
  TORCH_ARG(int64_t, num_channels) = 3;
  /// Biases on the query, key and value projections.
  TORCH_ARG(bool, qkv_bias) = true;
  /// Kept for config round trips (ViTForMaskedImageModeling's decoder stride); unused here.
  TORCH_ARG(int64_t, encoder_stride) = 16;
  /// Outputs of the classifier; 1 means regression.
  TORCH_ARG(int64_t, num_labels) = 2;
  /// id2label names; empty means "LABEL_<i>".
  TORCH_ARG(std::vector<std::string>, label_names) = {};
  /// Unset: inferred from num_labels and the labels' dtype when the loss is computed (as transformers).
  TORCH_ARG(std::optional<ProblemType>, problem_type) = std::nullopt;

 public:
  /// Patches along one side of a config-sized image, and in all.
  int64_t patches_per_side() const { return image_size() / patch_size(); }
  int64_t num_patches() const { return patches_per_side() * patches_per_side(); }
  /// Throws, naming `source` and the field, on values no model can be built from.
  void validate(const std::string& source = "VitOptions") const;
};

/// Reads a Hugging Face ViT config.json (model_type "vit"). Every field falls back to transformers'
/// ViTConfig default when absent; num_labels comes from id2label, else num_labels, else 2. Throws,
/// naming the file and the field, on a wrong type, an unsupported hidden_act or another model_type.
VitOptions load_vit_config(const std::string& path);

/// The config.json content transformers writes for these options (keys sorted); `architecture` goes
/// into "architectures" (e.g. "ViTForImageClassification").
nlohmann::json vit_config_json(const VitOptions& options, const std::string& architecture);

}  // namespace capaboost
