#pragma once
// Turning decoded images into a vision backbone's `pixel_values`, as Hugging Face's ViTImageProcessor
// does after resizing: rescale 8-bit values by 1/255, normalise each channel with the checkpoint's
// mean and standard deviation, channels first. ViT-B/16 in21k (and NOAH's VTAB code) use mean = std =
// 0.5 per channel, mapping [0, 255] onto [−1, 1].
//
//   torch::Tensor pixels = ImageProcessor(ImageProcessorOptions()).pixel_values(images);  // (N, 3, H, W)

#include <torch/torch.h>

#include <vector>

namespace capaboost {

struct ImageProcessorOptions {
  /// Per-channel mean and standard deviation after rescaling (ViTImageProcessor's image_mean / image_std).
  TORCH_ARG(std::vector<double>, image_mean) = {0.5, 0.5, 0.5};
  TORCH_ARG(std::vector<double>, image_std) = {0.5, 0.5, 0.5};
  TORCH_ARG(double, rescale_factor) = 1.0 / 255.0;
};

class ImageProcessor {
 public:
  explicit ImageProcessor(ImageProcessorOptions options);

  /// images: uint8 (H, W, C) or (N, H, W, C), C equal to the number of means → float32 (N, C, H, W)
  /// computed as (x · rescale_factor − mean_c) / std_c with transformers' roundings (the rescale in
  /// float64, the normalisation in float32).
  torch::Tensor pixel_values(const torch::Tensor& images) const;

  const ImageProcessorOptions& options() const { return options_; }

 private:
  ImageProcessorOptions options_;
};

}  // namespace capaboost
