// Fuzzes the image decoder (data/image_file.h): PNG through libpng's simplified API (palettes, 16-bit
// samples, alpha, interlacing) and JPEG through libjpeg(-turbo) (baseline, progressive, subsampled,
// restart markers), told apart by their first bytes as VTAB-1k's files are. Each decoded image is summed,
// so every pixel the decoder wrote is read. Bad input must end in the reader's c10::Error; a crash, a
// sanitizer report, an allocation beyond libFuzzer's limit or any other exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "data/image_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "image");
  try {
    const torch::Tensor image = capaboost::read_image_file(path);
    image.sum();
  } catch (const c10::Error&) {
  }
  return 0;
}
