#include "data/image_file.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <jpeglib.h>
#include <zlib.h>

#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

int reference_value(int x, int y, int c) { return (37 * x + 11 * y + 5 * c) % 256; }

std::string image_error_of(const std::string& path) {
  try {
    read_image_file(path);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

// A constant-colour RGB JPEG written with libjpeg's compressor at quality 95.
void write_constant_jpeg(const std::string& path, int width, int height, const uint8_t rgb[3]) {
  FILE* file = std::fopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  jpeg_compress_struct info;
  jpeg_error_mgr error;
  info.err = jpeg_std_error(&error);
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, file);
  info.image_width = JDIMENSION(width);
  info.image_height = JDIMENSION(height);
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 95, TRUE);
  jpeg_start_compress(&info, TRUE);
  std::vector<uint8_t> row(size_t(width) * 3);
  for (int x = 0; x < width; ++x) std::copy(rgb, rgb + 3, row.begin() + x * 3);
  while (info.next_scanline < info.image_height) {
    JSAMPROW pointer = row.data();
    jpeg_write_scanlines(&info, &pointer, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::fclose(file);
}

}  // namespace

TEST_CASE("PNG files written byte by byte by an independent writer decode to their pixels", "[data][image]") {
  const auto python = capaboost::testing::system_python();
  if (!python) {
    WARN("skipped: no system python3 to write the reference PNG files");
    return;
  }
  capaboost::testing::TempDir dir;
  const auto written = capaboost::testing::run_command("'" + *python + "' '" CAPABOOST_SOURCE_DIR
                                                       "/tests/lib/data/write_png_reference.py' '" +
                                                       dir.path().string() + "'");
  REQUIRE(written.exit_code == 0);
  const auto rgb = read_image_file(dir.file("rgb.png"));
  REQUIRE(rgb.sizes() == torch::IntArrayRef({5, 7, 3}));
  const auto gray = read_image_file(dir.file("gray.png"));
  REQUIRE(gray.sizes() == torch::IntArrayRef({5, 7, 1}));
  const auto palette = read_image_file(dir.file("palette.png"));
  REQUIRE(palette.sizes() == torch::IntArrayRef({5, 7, 3}));
  int mismatches = 0;
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 7; ++x) {
      for (int c = 0; c < 3; ++c) mismatches += rgb[y][x][c].item<int>() != reference_value(x, y, c);
      mismatches += gray[y][x][0].item<int>() != reference_value(x, y, 0);
      const int entry = (x + y) % 4;
      mismatches += palette[y][x][0].item<int>() != 60 * entry;
      mismatches += palette[y][x][1].item<int>() != 255 - 60 * entry;
      mismatches += palette[y][x][2].item<int>() != 30 * entry;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("PNG files the suite writes read back exactly", "[data][image]") {
  capaboost::testing::TempDir dir;
  const auto image = torch::randint(0, 256, {9, 6, 3}, torch::kUInt8);
  write_png_file(dir.file("round.png"), image);
  CHECK(torch::equal(read_image_file(dir.file("round.png")), image));
}

TEST_CASE("JPEG files decode to RGB within JPEG's rounding", "[data][image]") {
  capaboost::testing::TempDir dir;
  const uint8_t colour[3] = {200, 120, 40};
  write_constant_jpeg(dir.file("flat.jpg"), 24, 16, colour);
  const auto image = read_image_file(dir.file("flat.jpg"));
  REQUIRE(image.sizes() == torch::IntArrayRef({16, 24, 3}));
  for (int c = 0; c < 3; ++c) {
    const auto channel = image.select(2, c).to(torch::kInt32);
    CHECK((channel - colour[c]).abs().max().item<int>() <= 2);  // YCbCr round trip at quality 95
  }
}

TEST_CASE("unreadable images are errors naming the file", "[data][image]") {
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("notes.png")) << "not an image at all";
  CHECK_THAT(image_error_of(dir.file("notes.png")), Catch::Contains("notes.png") && Catch::Contains("neither PNG nor JPEG"));
  std::ofstream(dir.file("broken.jpg"), std::ios::binary) << std::string("\xFF\xD8\xFF\xE0garbage", 11);
  CHECK_THAT(image_error_of(dir.file("broken.jpg")), Catch::Contains("broken.jpg") && Catch::Contains("damaged"));
  capaboost::testing::TempDir other;
  write_png_file(other.file("cut.png"), torch::randint(0, 256, {32, 32, 3}, torch::kUInt8));
  std::ifstream in(other.file("cut.png"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir.file("cut.png"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THAT(image_error_of(dir.file("cut.png")), Catch::Contains("cut.png"));
  CHECK_THAT(image_error_of(dir.file("absent.png")), Catch::Contains("cannot open"));
}

TEST_CASE("a header declaring more pixels than the reader decodes is an error before any allocation", "[data][image]") {
  // Found by the image fuzz target (tests/fuzz/image_fuzz.cpp): 121 bytes of JPEG whose frame header
  // declares 65296 x 65496 pixels made the reader allocate 4.3 GB for them.
  capaboost::testing::TempDir dir;
  const std::string jpeg(
      "\xFF\xD8\xFF\xE0\x00\x10\x4A\x46\x49\xFF\xDA\x01\x01\x00\x00\x01"
      "\x00\x01\x00\x00\xFF\xDB\x00\x43\x00\x04\x02\x02\x02\x02\x02\x02"
      "\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02"
      "\x02\x02\x02\x02\x02\x02\x02\x02\x00\x00\x00\x00\x00\x01\x02\x03"
      "\x04\x05\x06\x03\x08\x09\x0A\x0B\x10\x00\x00\x04\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1F\xF0\x11\xFF\xC0\x00"
      "\x0B\x08\xFF\xD8\xFF\x10\x01\x01\x11\x00\xFF\xDA\x00\x08\x01\x01"
      "\x00\x00\x3F\x00\x36\x0B\x31\x00\x00",
      121);
  std::ofstream(dir.file("huge.jpg"), std::ios::binary) << jpeg;
  CHECK_THAT(image_error_of(dir.file("huge.jpg")),
             Catch::Contains("huge.jpg") && Catch::Contains("65296 x 65496") && Catch::Contains("8192 x 8192"));
  // A PNG whose IHDR says 100000 x 100000 (within libpng's own limit of 10^6 a side), its CRC redone.
  write_png_file(dir.file("small.png"), torch::zeros({2, 2, 1}, torch::kUInt8));
  std::ifstream in(dir.file("small.png"), std::ios::binary);
  std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(png.substr(12, 4) == "IHDR");
  const std::string side("\x00\x01\x86\xA0", 4);  // 100000, big-endian
  png.replace(16, 4, side);
  png.replace(20, 4, side);
  const auto crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + 12), 17);  // type and data of IHDR
  for (int i = 0; i < 4; ++i) png[29 + i] = char((crc >> (24 - 8 * i)) & 0xFF);
  std::ofstream(dir.file("huge.png"), std::ios::binary) << png;
  CHECK_THAT(image_error_of(dir.file("huge.png")),
             Catch::Contains("huge.png") && Catch::Contains("100000 x 100000") && Catch::Contains("8192 x 8192"));
}
