#include "data/image_processor.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("the image processor maps 8-bit values onto [-1, 1] channels first, as ViT-B/16's processor", "[data][image]") {
  const ImageProcessor processor{ImageProcessorOptions()};
  auto image = torch::zeros({2, 3, 3}, torch::kUInt8);  // (H, W, C)
  image[0][0][0] = 255;
  image[1][2][1] = 51;  // 51 / 255 = 0.2 → (0.2 − 0.5) / 0.5 = −0.6
  const auto pixels = processor.pixel_values(image);
  REQUIRE(pixels.sizes() == torch::IntArrayRef({1, 3, 2, 3}));  // (N, C, H, W)
  CHECK(pixels.scalar_type() == torch::kFloat32);
  CHECK(pixels[0][0][0][0].item<float>() == 1.0f);
  CHECK(pixels[0][1][1][2].item<float>() == Approx(-0.6).epsilon(1e-6));
  CHECK(pixels[0][2][1][1].item<float>() == -1.0f);

  // One grey channel (Fashion-MNIST) with its own statistics.
  const ImageProcessor grey{ImageProcessorOptions().image_mean({0.25}).image_std({0.5})};
  const auto batch = torch::full({4, 28, 28, 1}, 255, torch::kUInt8);
  CHECK(grey.pixel_values(batch).sizes() == torch::IntArrayRef({4, 1, 28, 28}));
  CHECK(grey.pixel_values(batch)[3][0][27][27].item<float>() == 1.5f);
}

TEST_CASE("the image processor refuses images it cannot normalise", "[data][image]") {
  const ImageProcessor processor{ImageProcessorOptions()};
  CHECK_THROWS_WITH(processor.pixel_values(torch::zeros({4, 4, 1}, torch::kUInt8)), Catch::Contains("1 channels but 3"));
  CHECK_THROWS_WITH(processor.pixel_values(torch::zeros({4, 4, 3})), Catch::Contains("uint8"));
  CHECK_THROWS_WITH(ImageProcessor(ImageProcessorOptions().image_std({0.5, 0.0, 0.5})), Catch::Contains("positive"));
}
