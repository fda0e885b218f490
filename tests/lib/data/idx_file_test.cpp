#include "data/idx_file.h"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

using namespace capaboost;

namespace {

// An unsigned-byte IDX file: magic 00 00 08 <dims>, big-endian sizes, values.
std::string idx_bytes(const std::vector<uint32_t>& sizes, const std::vector<uint8_t>& values, int type = 0x08) {
  std::string bytes = {0, 0, char(type), char(sizes.size())};
  for (const uint32_t size : sizes) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(char((size >> shift) & 0xFF));
  }
  bytes.append(values.begin(), values.end());
  return bytes;
}

void write_plain(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

void write_gzip(const std::string& path, const std::string& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, bytes.data(), unsigned(bytes.size())) == int(bytes.size()));
  gzclose(file);
}

std::string idx_error_of(const std::string& path) {
  try {
    read_idx_file(path);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("IDX files are read with their declared dimensions, plain or gzip-compressed", "[data][idx]") {
  capaboost::testing::TempDir dir;
  std::vector<uint8_t> values;
  for (int i = 0; i < 2 * 3 * 4; ++i) values.push_back(uint8_t(i * 10));
  const auto bytes = idx_bytes({2, 3, 4}, values);
  write_plain(dir.file("images.idx"), bytes);
  write_gzip(dir.file("images.idx.gz"), bytes);
  for (const auto* name : {"images.idx", "images.idx.gz"}) {
    const auto tensor = read_idx_file(dir.file(name));
    CHECK(tensor.scalar_type() == torch::kUInt8);
    CHECK(tensor.sizes() == torch::IntArrayRef({2, 3, 4}));
    CHECK(tensor[1][2][3].item<int>() == 230);  // row-major: index 1·12 + 2·4 + 3 = 23
    CHECK(tensor[0][1][0].item<int>() == 40);
  }
}

TEST_CASE("damaged IDX files are errors naming the file and what is wrong", "[data][idx]") {
  capaboost::testing::TempDir dir;
  const std::vector<uint8_t> values(12, 7);
  write_gzip(dir.file("truncated.gz"), idx_bytes({3, 4}, values).substr(0, 14));
  CHECK_THAT(idx_error_of(dir.file("truncated.gz")), Catch::Contains("truncated.gz") && Catch::Contains("truncated"));
  write_plain(dir.file("float.idx"), idx_bytes({12}, values, 0x0D));
  CHECK_THAT(idx_error_of(dir.file("float.idx")), Catch::Contains("not unsigned byte"));
  write_plain(dir.file("extra.idx"), idx_bytes({3, 4}, values) + "x");
  CHECK_THAT(idx_error_of(dir.file("extra.idx")), Catch::Contains("bytes after"));
  write_plain(dir.file("text.idx"), "hello world");
  CHECK_THAT(idx_error_of(dir.file("text.idx")), Catch::Contains("not an IDX file"));
  CHECK_THAT(idx_error_of(dir.file("absent.idx")), Catch::Contains("cannot open"));
}

TEST_CASE("Debian's Fashion-MNIST has its published sizes and balanced classes", "[data][idx][fashion-mnist]") {
  const std::filesystem::path folder = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(folder / "train-labels-idx1-ubyte.gz")) {
    WARN("skipped: dataset-fashion-mnist is not installed (make deps)");
    return;
  }
  const auto train_images = read_idx_file((folder / "train-images-idx3-ubyte.gz").string());
  const auto train_labels = read_idx_file((folder / "train-labels-idx1-ubyte.gz").string());
  const auto test_labels = read_idx_file((folder / "t10k-labels-idx1-ubyte.gz").string());
  CHECK(train_images.sizes() == torch::IntArrayRef({60000, 28, 28}));
  // Zalando's release: 6,000 training and 1,000 test images per class, ten classes.
  const auto train_counts = torch::bincount(train_labels.to(torch::kInt64));
  const auto test_counts = torch::bincount(test_labels.to(torch::kInt64));
  CHECK(train_counts.size(0) == 10);
  CHECK(train_counts.eq(6000).all().item<bool>());
  CHECK(test_counts.eq(1000).all().item<bool>());
}

TEST_CASE("IDX sizes that overflow or promise more than the file holds are errors and allocate nothing", "[data][idx]") {
  // Found by the idx fuzz target (tests/fuzz/idx_fuzz.cpp): the product of four 32-bit sizes overflowed
  // int64_t before the plausibility check (UBSan), and a 20-byte header could make the reader allocate
  // up to 16 GiB for values that were not there.
  capaboost::testing::TempDir dir;
  write_plain(dir.file("overflow.idx"), idx_bytes({0xFFFFFFFFu, 4, 0xFFFFFFFFu, 1}, {1, 2, 3}));
  CHECK_THAT(idx_error_of(dir.file("overflow.idx")),
             Catch::Contains("overflow.idx") && Catch::Contains("implausibly large"));
  // 2^33 values declared (within the 2^34 bound), three present: truncated, read chunk by chunk.
  write_plain(dir.file("promise.idx"), idx_bytes({0x10000u, 0x10000u, 2}, {1, 2, 3}));
  CHECK_THAT(idx_error_of(dir.file("promise.idx")), Catch::Contains("promise.idx") && Catch::Contains("truncated"));
  write_gzip(dir.file("promise.idx.gz"), idx_bytes({0x10000u, 0x10000u, 2}, {1, 2, 3}));
  CHECK_THAT(idx_error_of(dir.file("promise.idx.gz")), Catch::Contains("truncated"));
  // Zero-sized dimensions still read as empty tensors.
  write_plain(dir.file("empty.idx"), idx_bytes({0, 28, 28}, {}));
  CHECK(read_idx_file(dir.file("empty.idx")).sizes() == torch::IntArrayRef({0, 28, 28}));
}
