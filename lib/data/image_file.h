#pragma once
// Decoding image files with Debian's libpng and libjpeg(-turbo): VTAB-1k's folders hold JPEG and PNG
// images of varying sizes.
//
//   torch::Tensor image = read_image_file("vtab-1k/dtd/images/train/0.jpg");   // uint8 (H, W, 3)

#include <torch/torch.h>

#include <string>

namespace capaboost {

/// The PNG or JPEG at `path` (recognised by its signature, not its name) as uint8 (H, W, C): C = 1 for
/// grayscale files, 3 otherwise (palettes expanded, 16-bit samples reduced to 8, alpha composited onto
/// black as VTAB's RGB conversion drops it). Throws, naming the file, on anything else, a damaged file, or
/// a header declaring more than 8192 x 8192 pixels (checked before anything is allocated for them).
torch::Tensor read_image_file(const std::string& path);

/// Writes `image` (uint8 (H, W, 1 or 3)) as an 8-bit PNG: for fixtures and for looking at a task's images.
void write_png_file(const std::string& path, const torch::Tensor& image);

}  // namespace capaboost
