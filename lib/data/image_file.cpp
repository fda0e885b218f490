#include "data/image_file.h"

#include <csetjmp>
#include <cstdint>
#include <cstdio>  // before jpeglib.h, which uses FILE without including it
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <jpeglib.h>
#include <png.h>

namespace capaboost {
namespace {

// The most pixels a file may declare: 8192 x 8192 (VTAB-1k's images are at most a few megapixels). A
// header is a few bytes, so without a bound a damaged or hostile one makes the decoder allocate what its
// fields allow (JPEG: 65500 x 65500, PNG: 10^6 x 10^6) before a single pixel is read.
constexpr uint64_t kMaxPixels = uint64_t(1) << 26;

std::string too_many_pixels(uint64_t width, uint64_t height) {
  return "its header declares " + std::to_string(width) + " x " + std::to_string(height) + " pixels, more than the " +
         std::to_string(kMaxPixels) + " (8192 x 8192) this reader decodes; the file is damaged or not meant for it";
}

// libpng's simplified API: it handles palettes, 16-bit samples and gamma itself.
torch::Tensor read_png(const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  TORCH_CHECK(png_image_begin_read_from_file(&image, path.c_str()) != 0, "image ", path, ": not a readable PNG (",
              image.message, ")");
  if (uint64_t(image.width) * image.height > kMaxPixels) {
    const std::string message = too_many_pixels(image.width, image.height);
    png_image_free(&image);
    TORCH_CHECK(false, "image ", path, ": ", message);
  }
  const bool color = (image.format & PNG_FORMAT_FLAG_COLOR) != 0;
  image.format = color ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  const int64_t channels = color ? 3 : 1;
  auto pixels = torch::empty({int64_t(image.height), int64_t(image.width), channels}, torch::kUInt8);
  // background nullptr: alpha composited onto black.
  const int ok = png_image_finish_read(&image, nullptr, pixels.data_ptr<uint8_t>(), 0, nullptr);
  const std::string message = image.message;
  png_image_free(&image);
  TORCH_CHECK(ok != 0, "image ", path, ": the PNG is damaged (", message, ")");
  return pixels;
}

// libjpeg reports errors through error_exit, which must not return: jump back and throw from here,
// after the decompressor is destroyed (a C++ exception must not cross libjpeg's C frames).
struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr info) {
  auto* error = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

// libjpeg's warnings ("Corrupt JPEG data: 2 extraneous bytes before marker") go to stderr by default,
// one line per image of a dataset, while it decodes the image anyway (as PIL does, silently): kept quiet.
// The fuzzer spent most of its time printing them.
void jpeg_quiet_output(j_common_ptr) {}

// The tensor lives in the caller's frame: objects of this frame modified after setjmp are
// indeterminate after the jump, so nothing with a destructor may live here.
bool decode_jpeg(FILE* file, torch::Tensor& pixels, std::string& message) {
  jpeg_decompress_struct info;
  JpegError error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jpeg_error_exit;
  error.manager.output_message = jpeg_quiet_output;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    message = std::string("the JPEG is damaged (") + error.message + ")";
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, file);
  jpeg_read_header(&info, TRUE);
  // Before jpeg_start_decompress, which allocates by the declared size too (a progressive file's
  // coefficients for the whole image).
  if (uint64_t(info.image_width) * info.image_height > kMaxPixels) {
    message = too_many_pixels(info.image_width, info.image_height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  // Grayscale stays one channel; YCbCr files come out as RGB. CMYK and YCCK files fail here: libjpeg-turbo
  // converts neither to RGB ("Unsupported color conversion request"), reported as a damaged JPEG.
  info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&info);
  const int64_t channels = info.output_components;
  pixels = torch::empty({int64_t(info.output_height), int64_t(info.output_width), channels}, torch::kUInt8);
  uint8_t* data = pixels.data_ptr<uint8_t>();
  const int64_t stride = int64_t(info.output_width) * channels;
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = data + int64_t(info.output_scanline) * stride;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

torch::Tensor read_jpeg(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  TORCH_CHECK(file, "image ", path, ": cannot open it");
  torch::Tensor pixels;
  std::string message;
  TORCH_CHECK(decode_jpeg(file.get(), pixels, message), "image ", path, ": ", message);
  return pixels;
}

}  // namespace

torch::Tensor read_image_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in, "image ", path, ": cannot open it");
  unsigned char signature[8] = {};
  in.read(reinterpret_cast<char*>(signature), sizeof(signature));
  TORCH_CHECK(in.gcount() >= 3, "image ", path, ": empty or truncated");
  if (png_sig_cmp(signature, 0, static_cast<std::size_t>(in.gcount())) == 0) return read_png(path);
  if (signature[0] == 0xFF && signature[1] == 0xD8 && signature[2] == 0xFF) return read_jpeg(path);
  TORCH_CHECK(false, "image ", path, ": neither PNG nor JPEG (by its first bytes); convert it to one of them");
}

void write_png_file(const std::string& path, const torch::Tensor& image) {
  TORCH_CHECK(image.dim() == 3 && (image.size(2) == 1 || image.size(2) == 3) && image.scalar_type() == torch::kUInt8,
              "write_png_file: expected uint8 (H, W, 1 or 3), got ", image.scalar_type(), " ", image.sizes());
  const auto pixels = image.contiguous();
  png_image out;
  std::memset(&out, 0, sizeof(out));
  out.version = PNG_IMAGE_VERSION;
  out.width = static_cast<png_uint_32>(image.size(1));
  out.height = static_cast<png_uint_32>(image.size(0));
  out.format = image.size(2) == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  const int ok = png_image_write_to_file(&out, path.c_str(), 0, pixels.data_ptr<uint8_t>(), 0, nullptr);
  const std::string message = out.message;
  png_image_free(&out);
  TORCH_CHECK(ok != 0, "write_png_file: cannot write ", path, " (", message, ")");
}

}  // namespace capaboost
