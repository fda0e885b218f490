#include "models/vit_for_masked_image_modeling.h"

#include <catch2/catch.hpp>

#include <set>

#include "models/vit_pretrained.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

VitOptions tiny_mim() {
  return VitOptions().hidden_size(16).num_hidden_layers(2).num_attention_heads(2).intermediate_size(24).image_size(8)
      .patch_size(2).encoder_stride(2).num_channels(1);
}

}  // namespace

TEST_CASE("ViTForMaskedImageModeling has transformers' names and reconstructs at the image's size", "[models][vit][mim]") {
  torch::manual_seed(0);
  VitForMaskedImageModeling model(tiny_mim());
  std::set<std::string> names;
  for (const auto& item : model->named_parameters()) names.insert(item.key());
  CHECK(names.count("vit.embeddings.mask_token") == 1);
  CHECK(names.count("decoder.0.weight") == 1);
  CHECK(names.count("decoder.0.bias") == 1);
  CHECK(names.count("vit.layernorm.weight") == 1);
  CHECK(model->decoder[0]->as<torch::nn::Conv2d>()->weight.sizes() == torch::IntArrayRef({4, 16, 1, 1}));  // stride² · channels
  const auto pixels = torch::randn({3, 1, 8, 8});
  const auto out = model->forward(pixels, torch::zeros({3, 16}, torch::kBool));
  CHECK(out.reconstruction.sizes() == pixels.sizes());
  CHECK_THROWS_WITH(VitForMaskedImageModeling(tiny_mim().encoder_stride(4)), Catch::Contains("encoder_stride"));
}

TEST_CASE("masked patches are replaced by the mask token before positions are added", "[models][vit][mim]") {
  torch::manual_seed(1);
  VitForMaskedImageModeling model(tiny_mim());
  model->eval();
  torch::NoGradGuard no_grad;
  const auto all = torch::ones({2, 16}, torch::kBool);
  // Every patch masked: the encoder never sees the pixels.
  const auto a = model->forward(torch::randn({2, 1, 8, 8}), all).reconstruction;
  const auto b = model->forward(torch::randn({2, 1, 8, 8}), all).reconstruction;
  CHECK(torch::allclose(a, b));
  // Nothing masked: exactly the plain encoder.
  const auto pixels = torch::randn({2, 1, 8, 8});
  const auto none = model->vit->forward(pixels, {}, torch::zeros({2, 16}, torch::kBool)).last_hidden_state;
  CHECK(torch::allclose(none, model->vit->forward(pixels).last_hidden_state));
  // One patch masked: its embedding is mask_token + its position.
  model->vit->embeddings->mask_token.normal_();
  auto mask = torch::zeros({1, 16}, torch::kBool);
  mask[0][5] = true;
  const auto embedded = model->vit->embeddings->forward(pixels.slice(0, 0, 1), false, mask);  // (1, 17, 16)
  const auto expected = model->vit->embeddings->mask_token[0][0] + model->vit->embeddings->position_embeddings[0][6];
  CHECK(torch::allclose(embedded[0][6], expected, 1e-6, 1e-6));
}

TEST_CASE("the masked-image loss is the mean L1 over masked pixels per channel", "[models][vit][mim]") {
  // 2 images, 2 channels, 4×4 pixels in 2×2 patches (4 patches each).
  const auto pixels = torch::randn({2, 2, 4, 4});
  const auto reconstruction = torch::randn({2, 2, 4, 4});
  auto mask = torch::zeros({2, 4}, torch::kBool);
  mask[0][1] = true;  // image 0, top-right patch
  mask[1][2] = true;  // image 1, bottom-left patch
  double sum = 0;
  int masked_pixels = 0;
  for (int b = 0; b < 2; ++b) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        const int patch = (y / 2) * 2 + x / 2;
        if (!mask[b][patch].item<bool>()) continue;
        ++masked_pixels;
        for (int c = 0; c < 2; ++c) sum += std::abs((pixels[b][c][y][x] - reconstruction[b][c][y][x]).item<double>());
      }
    }
  }
  // transformers divides by the masked pixel count (of the single-channel mask) and the channel count.
  const double expected = sum / (masked_pixels + 1e-5) / 2;
  CHECK(masked_image_loss(pixels, reconstruction, mask, 2).item<double>() == Approx(expected).epsilon(1e-5));
}

TEST_CASE("a masked-image-modelling checkpoint loads as the image classifier's encoder", "[models][vit][mim]") {
  torch::manual_seed(2);
  VitForMaskedImageModeling model(tiny_mim());
  capaboost::testing::TempDir dir;
  save_model_directory(*model, vit_config_json(model->options, "ViTForMaskedImageModeling"), dir.path().string(), false);
  auto loaded = load_vit_for_image_classification(dir.path().string(), 4);
  CHECK(torch::equal(loaded.model->vit->encoder->layer[1]->as<VitLayer>()->output->dense->weight,
                     model->vit->encoder->layer[1]->as<VitLayer>()->output->dense->weight));
  CHECK(torch::equal(loaded.model->vit->embeddings->position_embeddings, model->vit->embeddings->position_embeddings));
  const auto& unexpected = loaded.report.unexpected;
  CHECK(std::find(unexpected.begin(), unexpected.end(), "vit.embeddings.mask_token") != unexpected.end());
  CHECK(std::find(unexpected.begin(), unexpected.end(), "decoder.0.weight") != unexpected.end());
}
