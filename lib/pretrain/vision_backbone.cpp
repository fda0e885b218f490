#include "pretrain/vision_backbone.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "data/idx_file.h"
#include "models/pretrained_directory.h"
#include "util/atomic_file.h"
#include "util/closest_match.h"
#include "util/setup_error.h"
#include "util/sha256.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

/// Debian's dataset-fashion-mnist: the 60,000 training images (the labels are never read).
constexpr const char* kFashionMnistTrainImages = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";

// One grayscale channel at its native size: mean = std = 0.5, as ViT-B/16 in21k per channel.
ImageProcessorOptions grayscale_28() {
  return ImageProcessorOptions().size(28).image_mean({0.5}).image_std({0.5});
}

// mini-vit: 49 patches of 4×4 at 28×28, 4 pre-LN blocks 96 wide (0.45M encoder parameters), sized by
// measurement so that pre-training stays within 30 minutes on the project's 2-core machine (docs/offline-encoders.md,
// "`mini-vit` and the Fashion-MNIST-1k proxy").
VisionBackboneRecipe mini_vit() {
  VisionBackboneRecipe recipe;
  recipe.profile = "mini-vit";
  recipe.images_path = kFashionMnistTrainImages;
  recipe.heldout_images = 5000;
  recipe.model = VitOptions()
                     .hidden_size(96)
                     .num_hidden_layers(4)
                     .num_attention_heads(4)
                     .intermediate_size(384)
                     .image_size(28)
                     .patch_size(4)
                     .encoder_stride(4)
                     .num_channels(1)
                     .num_labels(2);
  recipe.processing = grayscale_28();
  recipe.pretrain = MaskedImagePretrainOptions()
                        .steps(4000)
                        .batch_size(128)
                        .peak_lr(1e-3)
                        .mask_ratio(0.5)
                        .eval_every(500)
                        .label("mini-vit mim");
  return recipe;
}

// smoke-vit: seconds; the same pipeline on 2,000 images with a 2×32 model.
VisionBackboneRecipe smoke_vit() {
  VisionBackboneRecipe recipe;
  recipe.profile = "smoke-vit";
  recipe.images_path = kFashionMnistTrainImages;
  recipe.heldout_images = 500;
  recipe.train_limit = 2000;
  recipe.model = VitOptions()
                     .hidden_size(32)
                     .num_hidden_layers(2)
                     .num_attention_heads(4)
                     .intermediate_size(64)
                     .image_size(28)
                     .patch_size(7)
                     .encoder_stride(7)
                     .num_channels(1)
                     .num_labels(2);
  recipe.processing = grayscale_28();
  recipe.pretrain =
      MaskedImagePretrainOptions().steps(20).batch_size(32).peak_lr(1e-3).eval_every(10).label("smoke-vit mim");
  return recipe;
}

void require_images(const VisionBackboneRecipe& recipe) {
  if (fs::exists(recipe.images_path)) return;
  throw SetupError(fmt::format("vision backbone {}: {} is missing; `make deps` installs Debian's "
                               "dataset-fashion-mnist",
                               recipe.profile, recipe.images_path));
}

fs::path backbone_directory(const VisionBackboneRecipe& recipe, const std::string& key,
                            const BackboneEnvironment& env) {
  return fs::path(env.cache_root) / "backbones" / fmt::format("{}-{}", recipe.profile, key.substr(0, 12));
}

void build_into(const fs::path& tmp, const VisionBackboneRecipe& recipe, const std::string& key,
                const std::string& images_sha256) {
  const auto start = std::chrono::steady_clock::now();
  const auto images = read_idx_file(recipe.images_path);  // (N, H, W) uint8
  TORCH_CHECK(images.dim() == 3 && images.size(0) > recipe.heldout_images, "vision backbone ", recipe.profile, ": ",
              recipe.images_path, " holds ", images.sizes(), " — too few images to hold out ",
              recipe.heldout_images);
  const auto pixels = ImageProcessor(recipe.processing).pixel_values(images.unsqueeze(3));  // (N, 1, H, W)
  const int64_t train_end = pixels.size(0) - recipe.heldout_images;
  const int64_t train_count = recipe.train_limit > 0 ? std::min(recipe.train_limit, train_end) : train_end;
  const auto train = pixels.slice(0, 0, train_count);
  const auto heldout = pixels.slice(0, train_end);

  torch::manual_seed(recipe.pretrain.seed());  // the initialisation
  VitForMaskedImageModeling model(recipe.model);
  const auto result = pretrain_masked_images(*model, train, heldout, recipe.pretrain);

  save_model_directory(*model, vit_config_json(model->options, "ViTForMaskedImageModeling"), tmp.string(),
                       /*include_tuners=*/false);
  write_file_atomically((tmp / kPreprocessorConfigFileName).string(), image_processor_config_json(recipe.processing));
  const nlohmann::json record = {
      {"profile", recipe.profile},
      {"objective", "masked image modelling (SimMIM, transformers' ViTForMaskedImageModeling loss)"},
      {"images", {{"path", recipe.images_path},
                  {"sha256", images_sha256},
                  {"train", {{"first", 0}, {"count", train_count}}},
                  {"heldout", {{"first", train_end}, {"count", recipe.heldout_images}}},
                  {"labels_read", false}}},
      {"key_material", recipe.key_material(images_sha256)},
      {"result", result.to_json()},
      {"build_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()},
      {"key", key}};
  write_file_atomically((tmp / kPretrainRecordFileName).string(), record.dump(2) + "\n");
}

}  // namespace

nlohmann::json VisionBackboneRecipe::key_material(const std::string& images_sha256) const {
  return {{"code_version", kVisionBackboneCodeVersion},
          {"profile", profile},
          {"images", images_sha256},
          {"heldout_images", heldout_images},
          {"train_limit", train_limit},
          {"model", vit_config_json(model, "ViTForMaskedImageModeling")},
          {"processing", nlohmann::json::parse(image_processor_config_json(processing))},
          {"pretrain", pretrain.to_json()}};
}

std::vector<std::string> vision_backbone_profiles() { return {"mini-vit", "smoke-vit"}; }

VisionBackboneRecipe vision_backbone_recipe(const std::string& profile) {
  if (profile == "mini-vit") return mini_vit();
  if (profile == "smoke-vit") return smoke_vit();
  TORCH_CHECK(false, "unknown vision backbone recipe '", profile, "'", did_you_mean(profile, vision_backbone_profiles()),
              "; known: mini-vit, smoke-vit");
}

std::optional<std::string> find_vision_backbone(const VisionBackboneRecipe& recipe, const BackboneEnvironment& env) {
  require_images(recipe);
  const std::string key = sha256_hex(recipe.key_material(sha256_file_hex(recipe.images_path)).dump());
  const auto dir = backbone_directory(recipe, key, env);
  if (is_complete_backbone(dir, key)) return dir.string();
  return std::nullopt;
}

std::string ensure_vision_backbone(const VisionBackboneRecipe& recipe, const BackboneEnvironment& env) {
  require_images(recipe);
  const std::string images_sha256 = sha256_file_hex(recipe.images_path);
  const std::string key = sha256_hex(recipe.key_material(images_sha256).dump());
  const auto dir = backbone_directory(recipe, key, env);
  const bool built =
      build_cached_directory(dir, key, [&](const fs::path& tmp) { build_into(tmp, recipe, key, images_sha256); });
  if (recipe.pretrain.show_progress()) {
    fmt::print(stderr, "backbone {}: {} {}\n", recipe.profile, built ? "written to" : "cached at", dir.string());
  }
  return dir.string();
}

std::string ensure_vision_backbone(const std::string& profile, const BackboneEnvironment& env) {
  return ensure_vision_backbone(vision_backbone_recipe(profile), env);
}

std::string vision_recipe_fingerprint(const std::string& profile) {
  const auto recipe = vision_backbone_recipe(profile);
  return "recipe:" + sha256_hex(recipe.key_material("file:" + recipe.images_path).dump());
}

}  // namespace capaboost
