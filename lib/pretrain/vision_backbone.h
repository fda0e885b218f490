#pragma once
// The suite's offline vision backbone, built once and cached like the text encoders
// (pretrain/backbone_builder.h): a small ViT at Fashion-MNIST's native 28×28 size, pre-trained by masked
// image modelling (pretrain/masked_image_pretrainer.h) on the training images alone — never a label,
// never the test split — and written as a Hugging Face ViTForMaskedImageModeling directory
// (config.json, model.safetensors, preprocessor_config.json, pretrain.json) that loads as a ViT backbone.
//
//   std::string dir = ensure_vision_backbone("mini-vit");   // builds on the first call (minutes)
//
// The directory is <cache>/backbones/<profile>-<key12>, key = SHA-256 of the recipe, the image files'
// digest and kVisionBackboneCodeVersion.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/image_processor.h"
#include "models/vit_config.h"
#include "pretrain/backbone_builder.h"
#include "pretrain/masked_image_pretrainer.h"

namespace capaboost {

/// Bump when a code change alters what a recipe produces.
inline constexpr const char* kVisionBackboneCodeVersion = "vit-mim-backbone/1";

struct VisionBackboneRecipe {
  std::string profile;  ///< "mini-vit", "smoke-vit"
  /// The unlabelled training images: an IDX image file (Debian's Fashion-MNIST training images).
  std::string images_path;
  /// The last this many images are held out to evaluate the reconstruction; the rest train.
  int64_t heldout_images = 5000;
  /// Use at most this many training images (0: all the others).
  int64_t train_limit = 0;
  VitOptions model;
  ImageProcessorOptions processing;
  MaskedImagePretrainOptions pretrain;

  /// Everything hashed into the cache key, given the image file's digest.
  nlohmann::json key_material(const std::string& images_sha256) const;
};

/// The recipe of `profile`; throws listing the known names otherwise.
VisionBackboneRecipe vision_backbone_recipe(const std::string& profile);
/// Names vision_backbone_recipe accepts.
std::vector<std::string> vision_backbone_profiles();

/// Builds the backbone of `recipe` unless a complete one with the same key exists; returns its directory.
std::string ensure_vision_backbone(const VisionBackboneRecipe& recipe, const BackboneEnvironment& env);
std::string ensure_vision_backbone(const std::string& profile,
                                   const BackboneEnvironment& env = BackboneEnvironment::from_environment());
/// The complete directory of `recipe` if it exists; never trains.
std::optional<std::string> find_vision_backbone(const VisionBackboneRecipe& recipe, const BackboneEnvironment& env);

/// The identity of a recipe without reading its images (for run keys): SHA-256 of its key material
/// with the images' path in place of their digest (Debian's package pins the file).
std::string vision_recipe_fingerprint(const std::string& profile);

}  // namespace capaboost
