#include "data/image_processor.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

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

torch::Tensor ImageProcessor::resize(const torch::Tensor& images) const {
  TORCH_CHECK(images.scalar_type() == torch::kUInt8 && images.dim() == 4,
              "ImageProcessor::resize: images must be uint8 (N, H, W, C), got ", images.scalar_type(), " ",
              images.sizes());
  const int64_t side = options_.size();
  if (side == 0 || (images.size(1) == side && images.size(2) == side)) return images;
  namespace F = torch::nn::functional;
  // antialias: PIL widens the filter support when shrinking; torch's antialiased modes follow PIL's
  // kernels (bilinear and bicubic with a = -0.5).
  F::InterpolateFuncOptions::mode_t mode = torch::kBilinear;
  if (options_.resample() == ImageResample::kBicubic) mode = torch::kBicubic;
  const auto resized = F::interpolate(images.permute({0, 3, 1, 2}).to(torch::kFloat32),
                                      F::InterpolateFuncOptions()
                                          .size(std::vector<int64_t>{side, side})
                                          .mode(mode)
                                          .align_corners(false)
                                          .antialias(true));  // (N, C, side, side)
  return resized.round().clamp(0, 255).to(torch::kUInt8).permute({0, 2, 3, 1}).contiguous();
}

ImageProcessorOptions load_image_processor_options(const std::string& directory, ImageProcessorOptions options) {
  const auto path = std::filesystem::path(directory) / kPreprocessorConfigFileName;
  if (!std::filesystem::exists(path)) return options;
  std::ifstream in(path);
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    TORCH_CHECK(false, path.string(), ": not valid JSON (", error.what(), ")");
  }
  const auto read = [&](const char* key, auto& value) {
    if (!config.contains(key)) return;
    try {
      config.at(key).get_to(value);
    } catch (const nlohmann::json::exception&) {
      TORCH_CHECK(false, path.string(), ": \"", key, "\" has the wrong type (", config.at(key).dump(), ")");
    }
  };
  std::vector<double> mean = options.image_mean(), deviation = options.image_std();
  double rescale = options.rescale_factor();
  read("image_mean", mean);
  read("image_std", deviation);
  read("rescale_factor", rescale);
  options.image_mean(mean).image_std(deviation).rescale_factor(rescale);
  if (config.contains("size")) {
    const auto& size = config.at("size");
    int64_t height = 0, width = 0;
    if (size.is_number_integer()) {
      height = width = size.get<int64_t>();  // older processors write one number
    } else {
      TORCH_CHECK(size.is_object() && size.contains("height") && size.contains("width"), path.string(),
                  ": \"size\" must be {\"height\": …, \"width\": …}, got ", size.dump());
      height = size.at("height").get<int64_t>();
      width = size.at("width").get<int64_t>();
    }
    TORCH_CHECK(height == width && height > 0, path.string(), ": size ", height, "×", width,
                " is not a positive square; the suite resizes to squares only");
    options.size(height);
  }
  if (config.contains("resample")) {
    const int resample = config.at("resample").get<int>();
    TORCH_CHECK(resample == 2 || resample == 3, path.string(), ": resample ", resample,
                " is not bilinear (2) or bicubic (3), the filters the suite implements");
    options.resample(static_cast<ImageResample>(resample));
  }
  ImageProcessor{options};  // validates the means and deviations
  return options;
}

std::string image_processor_config_json(const ImageProcessorOptions& options) {
  nlohmann::json config = {{"do_normalize", true},
                           {"do_rescale", true},
                           {"do_resize", options.size() > 0},
                           {"image_mean", options.image_mean()},
                           {"image_std", options.image_std()},
                           {"image_processor_type", "ViTImageProcessor"},
                           {"resample", static_cast<int>(options.resample())},
                           {"rescale_factor", options.rescale_factor()}};
  if (options.size() > 0) config["size"] = {{"height", options.size()}, {"width", options.size()}};
  return config.dump(2) + "\n";
}

}  // namespace capaboost
