#include "pretrain/vision_backbone.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "backbones/backbone_registry.h"
#include "models/vit_pretrained.h"
#include "pretrain/masked_image_pretrainer.h"
#include "support/temp_dir.h"

using namespace capaboost;

TEST_CASE("patch masks are seeded and mask exactly the ratio's share", "[pretrain][mim]") {
  const auto a = random_patch_mask(49, 0.5, 3, 10);
  CHECK(a.sum().item<int64_t>() == 25);  // round(24.5) away from zero
  CHECK(torch::equal(a, random_patch_mask(49, 0.5, 3, 10)));
  CHECK_FALSE(torch::equal(a, random_patch_mask(49, 0.5, 3, 11)));
  CHECK_THROWS_WITH(random_patch_mask(49, 1.0, 3, 0), Catch::Contains("mask_ratio"));
}

TEST_CASE("masked image modelling learns what the visible patches say about the masked ones", "[pretrain][mim]") {
  // Images of one random brightness each: the mean image cannot know it, the visible half tells it.
  torch::manual_seed(0);
  const auto brightness = torch::rand({640, 1, 1, 1}) * 2 - 1;
  const auto images = brightness.expand({640, 1, 8, 8}).contiguous();
  const auto train = images.slice(0, 0, 512), heldout = images.slice(0, 512);
  VitForMaskedImageModeling model(VitOptions().hidden_size(32).num_hidden_layers(2).num_attention_heads(4)
                                      .intermediate_size(64).image_size(8).patch_size(2).encoder_stride(2)
                                      .num_channels(1));
  const auto result = pretrain_masked_images(
      *model, train, heldout,
      MaskedImagePretrainOptions().steps(150).batch_size(32).peak_lr(3e-3).eval_every(50).show_progress(false));
  REQUIRE(result.log.size() == 3);
  CHECK(result.mean_image_heldout_loss == Approx(0.5).margin(0.08));  // the mean image is ≈ 0: E|U| = 0.5 for U ~ U(−1, 1)
  CHECK(result.final_heldout_loss < 0.4 * result.mean_image_heldout_loss);
  CHECK(result.log.back().heldout_loss < result.log.front().heldout_loss);
}

TEST_CASE("the smoke vision backbone builds once, caches, and loads as a ViT backbone", "[pretrain][mim][backbone]") {
  const auto recipe = vision_backbone_recipe("smoke-vit");
  if (!std::filesystem::exists(recipe.images_path)) {
    WARN("skipped: dataset-fashion-mnist is not installed (make deps)");
    return;
  }
  capaboost::testing::TempDir cache;
  const auto env = BackboneEnvironment::at(cache.path().string());
  CHECK_FALSE(find_vision_backbone(recipe, env));
  const auto dir = ensure_vision_backbone(recipe, env);
  for (const char* file : {"config.json", "model.safetensors", "preprocessor_config.json", "pretrain.json"}) {
    CHECK(std::filesystem::exists(std::filesystem::path(dir) / file));
  }
  std::ifstream in(std::filesystem::path(dir) / "pretrain.json");
  const auto record = nlohmann::json::parse(in);
  CHECK(record.at("images").at("labels_read") == false);
  CHECK(record.at("images").at("train").at("count") == 2000);
  CHECK(record.at("result").at("log").size() == 2);
  const auto written = std::filesystem::last_write_time(std::filesystem::path(dir) / "model.safetensors");
  CHECK(ensure_vision_backbone(recipe, env) == dir);  // a cache hit: not rebuilt
  CHECK(std::filesystem::last_write_time(std::filesystem::path(dir) / "model.safetensors") == written);
  CHECK(find_vision_backbone(recipe, env) == dir);

  const auto loaded = load_checkpoint(dir, TaskHead{TaskHead::Kind::kSequenceClassification, 10});
  REQUIRE(loaded.processor.image);
  CHECK(loaded.processor.image->size() == 28);
  CHECK(loaded.processor.image->image_mean() == std::vector<double>{0.5});
  CHECK_FALSE(loaded.processor.tokenizer);
  CHECK(vision_recipe_fingerprint("smoke-vit") != vision_recipe_fingerprint("mini-vit"));
  CHECK_THROWS_WITH(vision_backbone_recipe("mini-vt"), Catch::Contains("mini-vit"));
}
