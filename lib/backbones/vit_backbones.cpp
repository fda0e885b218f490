// The Vision Transformer as a backbone plugin: Hugging Face checkpoints of model_type "vit", the
// downloaded ImageNet-21k ViT-B/16 of the paper's Table 5, and randomly initialised ViT shapes.
//
//   model: vit-b16-in21k      google/vit-base-patch16-224-in21k in $CAPABOOST_CHECKPOINTS/vit-b16-in21k
//   model: vit-b16-random     ViT-B/16's shape (12×768, 224×224 images), random weights
//   model: vit-tiny-random    2 layers × 32 wide on 32×32 images in 8×8 patches, random weights (tests)
//   model: mini-vit           the suite's offline ViT, pre-trained by masked image modelling on
//                             Fashion-MNIST's training images (pretrain/vision_backbone.h; built on first use)
//   model: mini-vit-random    its architecture and processor, random weights (what pre-training buys)
//   model: smoke-vit, smoke-vit-random   the same for the seconds-long smoke recipe
//   model: /path/to/checkpoint  any directory whose config.json says model_type "vit"
//
// Images reach the model as a batch's "pixel_values" (B, channels, H, W), already normalised: the
// backbone's processor carries no tokenizer but the image settings of the checkpoint's
// preprocessor_config.json (ViTImageProcessor's defaults without one: the config's image size, mean and
// standard deviation 0.5 per channel).

#include <filesystem>

#include "backbones/backbone_registry.h"
#include "data/image_processor.h"
#include "models/vit_pretrained.h"
#include "pretrain/vision_backbone.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

void require_classification(const TaskHead& head) {
  TORCH_CHECK(head.kind == TaskHead::Kind::kSequenceClassification, "ViT backbones classify images; a task with a ",
              to_string(head.kind), " head cannot run on them");
}

// ViTImageProcessor's defaults for a model of `options`: resize to its image size, mean = std = 0.5.
ImageProcessorOptions default_image_processing(const VitOptions& options) {
  const std::vector<double> half(static_cast<size_t>(options.num_channels()), 0.5);
  return ImageProcessorOptions().size(options.image_size()).image_mean(half).image_std(half);
}

Backbone load_vit_backbone(const std::string& directory, const TaskHead& head) {
  require_classification(head);
  Backbone backbone;
  auto model = load_vit_for_image_classification(directory, head.num_labels).model;
  backbone.processor.image = load_image_processor_options(directory, default_image_processing(model->options));
  backbone.model = model.ptr();
  backbone.pretrained = true;
  backbone.description = "checkpoint " + directory;
  backbone.checkpoint_directory = directory;
  return backbone;
}

Backbone random_vit(VitOptions options, const std::string& what, const TaskHead& head) {
  require_classification(head);
  Backbone backbone;
  options.num_labels(head.num_labels).label_names({});
  backbone.model = VitForImageClassification(options).ptr();
  backbone.processor.image = default_image_processing(options);
  backbone.description = what + ", randomly initialised";
  return backbone;
}

Backbone random_vit_like(const std::string& directory, const TaskHead& head) {
  Backbone backbone = random_vit(load_vit_config((fs::path(directory) / kConfigFileName).string()),
                                 "architecture of " + directory, head);
  backbone.processor.image = load_image_processor_options(directory, *backbone.processor.image);
  return backbone;
}

bool register_offline_vit(const std::string& profile) {
  const auto fingerprint = [profile] { return vision_recipe_fingerprint(profile); };
  const auto prepare = [profile](const BackboneContext&) { ensure_vision_backbone(profile); };
  const bool pretrained = register_backbone(
      {profile, "the suite's offline '" + profile + "' ViT, pre-trained by masked image modelling (built on first use, cached)",
       [profile](const TaskHead& head, const BackboneContext&) {
         Backbone backbone = load_vit_backbone(ensure_vision_backbone(profile), head);
         backbone.description = "offline pre-trained '" + profile + "' ViT " + backbone.description;
         return backbone;
       },
       fingerprint, prepare});
  const bool random = register_backbone(
      {profile + "-random", "the '" + profile + "' ViT's architecture and processor, random weights",
       [profile](const TaskHead& head, const BackboneContext&) {
         Backbone backbone = random_vit_like(ensure_vision_backbone(profile), head);
         backbone.description = "offline '" + profile + "' ViT: " + backbone.description;
         return backbone;
       },
       fingerprint, prepare});
  return pretrained && random;
}

[[maybe_unused]] const bool registered_offline = [] {
  for (const auto& profile : vision_backbone_profiles()) register_offline_vit(profile);
  return true;
}();

[[maybe_unused]] const bool registered_vit_backbones =
    register_architecture({"vit", load_vit_backbone, random_vit_like}) &&
    register_backbone({"vit-b16-in21k",
                       "the ImageNet-21k pre-trained google/vit-base-patch16-224-in21k in $CAPABOOST_CHECKPOINTS/vit-b16-in21k",
                       [](const TaskHead& head, const BackboneContext&) {
                         return load_vit_backbone(downloaded_checkpoint("vit-b16-in21k", "google/vit-base-patch16-224-in21k",
                                                                        {"config.json", "model.safetensors", "preprocessor_config.json"}),
                                                  head);
                       }}) &&
    register_backbone({"vit-b16-random", "ViT-B/16's shape (12×768, 224×224 images), random weights",
                       [](const TaskHead& head, const BackboneContext&) {
                         return random_vit(VitOptions(), "ViT-B/16 shape (12×768)", head);
                       }}) &&
    register_backbone({"vit-tiny-random", "a 2-layer, 32-wide ViT on 32×32 images in 8×8 patches, random weights (tests)",
                       [](const TaskHead& head, const BackboneContext&) {
                         return random_vit(VitOptions()
                                               .hidden_size(32)
                                               .num_hidden_layers(2)
                                               .num_attention_heads(4)
                                               .intermediate_size(64)
                                               .image_size(32)
                                               .patch_size(8),
                                           "tiny ViT (2×32, 32×32 images)", head);
                       }});

}  // namespace
}  // namespace capaboost
