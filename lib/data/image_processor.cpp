#include "data/image_processor.h"

namespace capaboost {

ImageProcessor::ImageProcessor(ImageProcessorOptions options) : options_(std::move(options)) {
  TORCH_CHECK(!options_.image_mean().empty() && options_.image_mean().size() == options_.image_std().size(),
              "ImageProcessor: image_mean and image_std need one value per channel, got ", options_.image_mean().size(),
              " and ", options_.image_std().size());
  for (const double deviation : options_.image_std()) {
    TORCH_CHECK(deviation > 0, "ImageProcessor: every image_std must be positive, got ", deviation);
  }
}

torch::Tensor ImageProcessor::pixel_values(const torch::Tensor& images) const {
  TORCH_CHECK(images.scalar_type() == torch::kUInt8, "ImageProcessor: images must be uint8, got ", images.scalar_type());
  TORCH_CHECK(images.dim() == 3 || images.dim() == 4, "ImageProcessor: images must be (H, W, C) or (N, H, W, C), got ",
              images.sizes());
  const auto batch = images.dim() == 3 ? images.unsqueeze(0) : images;  // (N, H, W, C)
  const auto channels = static_cast<int64_t>(options_.image_mean().size());
  TORCH_CHECK(batch.size(3) == channels, "ImageProcessor: the images have ", batch.size(3), " channels but ",
              channels, " means and deviations");
  const auto as_channels = [&](const std::vector<double>& values) {
    return torch::tensor(values, torch::kFloat32).view({1, channels, 1, 1});
  };
  // ViTImageProcessor rescales in float64 (uint8 × a Python float), rounds to float32, then normalises as
  // (x − mean) / std in float32.
  const auto rescaled =
      (batch.permute({0, 3, 1, 2}).to(torch::kFloat64) * options_.rescale_factor()).to(torch::kFloat32);
  return ((rescaled - as_channels(options_.image_mean())) / as_channels(options_.image_std())).contiguous();
}

}  // namespace capaboost
