#include "models/vit_for_masked_image_modeling.h"

#include <cmath>

namespace capaboost {

VitForMaskedImageModelingImpl::VitForMaskedImageModelingImpl(const VitOptions& options_) : options(options_) {
  TORCH_CHECK(options.encoder_stride() == options.patch_size(), "ViTForMaskedImageModeling: encoder_stride ",
              options.encoder_stride(), " must equal patch_size ", options.patch_size(),
              " for the reconstruction to have the image's size");
  vit = register_module("vit", VitModel(options, /*add_pooling_layer=*/false, /*use_mask_token=*/true));
  const int64_t stride = options.encoder_stride();
  decoder = register_module(
      "decoder",
      torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(options.hidden_size(),
                                                                       stride * stride * options.num_channels(), 1)),
                            torch::nn::PixelShuffle(stride)));
  // transformers' _init_weights covers Conv2d too: normal(0, initializer_range), bias 0.
  torch::NoGradGuard no_grad;
  auto conv = decoder[0]->as<torch::nn::Conv2d>();
  conv->weight.normal_(0.0, options.initializer_range());
  conv->bias.zero_();
}

MaskedImageModelingOutput VitForMaskedImageModelingImpl::forward(const torch::Tensor& pixel_values,
                                                                 const torch::Tensor& bool_masked_pos) {
  const auto hidden = vit->forward(pixel_values, {}, bool_masked_pos).last_hidden_state;  // (B, 1 + P, C)
  const auto patches = hidden.slice(1, 1);                                                 // (B, P, C)
  const int64_t batch = patches.size(0), count = patches.size(1), channels = patches.size(2);
  const auto side = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(count))));
  TORCH_CHECK(side * side == count, "ViTForMaskedImageModeling: ", count, " patches do not form a square grid");
  const auto grid = patches.permute({0, 2, 1}).reshape({batch, channels, side, side});  // (B, C, h, w)
  MaskedImageModelingOutput out;
  out.reconstruction = decoder->forward(grid);  // (B, channels, S, S)
  if (bool_masked_pos.defined()) {
    out.loss = masked_image_loss(pixel_values, out.reconstruction, bool_masked_pos, options.patch_size());
  }
  return out;
}

torch::Tensor masked_image_loss(const torch::Tensor& pixel_values, const torch::Tensor& reconstruction,
                                const torch::Tensor& bool_masked_pos, int64_t patch_size) {
  TORCH_CHECK(pixel_values.sizes() == reconstruction.sizes(), "masked image loss: pixels ", pixel_values.sizes(),
              " and reconstruction ", reconstruction.sizes(), " differ");
  const int64_t side = pixel_values.size(2) / patch_size;
  TORCH_CHECK(bool_masked_pos.numel() == pixel_values.size(0) * side * side, "masked image loss: bool_masked_pos ",
              bool_masked_pos.sizes(), " is not one flag per ", patch_size, "×", patch_size, " patch");
  const auto mask = bool_masked_pos.reshape({-1, side, side})
                        .repeat_interleave(patch_size, 1)
                        .repeat_interleave(patch_size, 2)
                        .unsqueeze(1)
                        .to(pixel_values.scalar_type());  // (B, 1, S, S)
  const auto error = torch::abs(pixel_values - reconstruction);  // (B, channels, S, S)
  return (error * mask).sum() / (mask.sum() + 1e-5) / pixel_values.size(1);
}

}  // namespace capaboost
