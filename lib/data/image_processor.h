#pragma once
// Turning decoded images into a vision backbone's `pixel_values`, as Hugging Face's ViTImageProcessor
// does: resize to the backbone's square size (antialiased, as PIL), rescale 8-bit values by 1/255,
// normalise each channel with the checkpoint's mean and standard deviation, channels first. ViT-B/16 in21k (and NOAH's VTAB code) use mean = std =
// 0.5 per channel, mapping [0, 255] onto [−1, 1].
//
//   torch::Tensor pixels = ImageProcessor(ImageProcessorOptions()).pixel_values(images);  // (N, 3, H, W)

#include <torch/torch.h>

#include <string>
#include <vector>

namespace capaboost {

/// PIL's resampling filters as preprocessor_config.json numbers them ("resample": 2 or 3).
enum class ImageResample { kBilinear = 2, kBicubic = 3 };

struct ImageProcessorOptions {
  /// Side of the square images the backbone reads; 0 keeps every image's own size.
  TORCH_ARG(int64_t, size) = 0;
  /// ViTImageProcessor resizes bilinearly; NOAH's VTAB code bicubically.
  TORCH_ARG(ImageResample, resample) = ImageResample::kBilinear;
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

  /// images: uint8 (N, H, W, C) of one size → uint8 (N, size, size, C), or the images themselves when
  /// they have that size already or size is 0. Antialiased when shrinking, as PIL's resize; rounded and
  /// clamped back to 8 bits, as PIL returns an 8-bit image.
  torch::Tensor resize(const torch::Tensor& images) const;

  /// Channels the backbone reads (one mean per channel).
  int64_t channels() const { return static_cast<int64_t>(options_.image_mean().size()); }
  const ImageProcessorOptions& options() const { return options_; }

 private:
  ImageProcessorOptions options_;
};

/// The settings in a checkpoint directory's preprocessor_config.json (image_mean, image_std,
/// rescale_factor, size {height, width} — square only — and resample), each falling back to `defaults`
/// when absent; `defaults` when the file is absent. Throws, naming the file and the key, on a wrong type.
ImageProcessorOptions load_image_processor_options(const std::string& directory, ImageProcessorOptions defaults);

/// preprocessor_config.json as ViTImageProcessor.save_pretrained writes it for `options`.
std::string image_processor_config_json(const ImageProcessorOptions& options);

/// File name of the processor settings inside a checkpoint directory.
inline constexpr const char* kPreprocessorConfigFileName = "preprocessor_config.json";

}  // namespace capaboost
