#include "data/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cstdint>
#include <memory>
#include <vector>

namespace capaboost {
namespace {

constexpr int kUnsignedByte = 0x08;
constexpr int kMaxDimensions = 4;
constexpr int64_t kMaxValues = int64_t(1) << 34;
constexpr int64_t kChunk = int64_t(1) << 24;

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly `size` bytes; false at end of file. gzread reads a plain file transparently.
bool read_exactly(gzFile file, void* out, std::size_t size, const std::string& path) {
  auto* bytes = static_cast<unsigned char*>(out);
  std::size_t done = 0;
  while (done < size) {
    const std::size_t chunk = std::min<std::size_t>(size - done, 1u << 30);
    const int got = gzread(file, bytes + done, static_cast<unsigned>(chunk));
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file, &code);
      TORCH_CHECK(false, "IDX file ", path, ": cannot decompress (", message, "); the file is corrupt, reinstall it");
    }
    if (got == 0) return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace

torch::Tensor read_idx_file(const std::string& path) {
  GzFile file(gzopen(path.c_str(), "rb"));
  TORCH_CHECK(file, "IDX file ", path, ": cannot open it");
  std::array<unsigned char, 4> magic{};
  TORCH_CHECK(read_exactly(file.get(), magic.data(), magic.size(), path), "IDX file ", path,
              ": shorter than its 4-byte header");
  TORCH_CHECK(magic[0] == 0 && magic[1] == 0, "IDX file ", path,
              ": not an IDX file (its first two bytes must be zero)");
  TORCH_CHECK(magic[2] == kUnsignedByte, "IDX file ", path, ": element type 0x", std::hex, int(magic[2]),
              " is not unsigned byte (0x08), the only type image and label files use");
  const int dimensions = magic[3];
  TORCH_CHECK(dimensions >= 1 && dimensions <= kMaxDimensions, "IDX file ", path, ": ", dimensions,
              " dimensions; expected 1 (labels) to ", kMaxDimensions);
  std::vector<int64_t> sizes;
  int64_t count = 1;
  for (int d = 0; d < dimensions; ++d) {
    std::array<unsigned char, 4> be{};
    TORCH_CHECK(read_exactly(file.get(), be.data(), be.size(), path), "IDX file ", path,
                ": truncated in the size of dimension ", d);
    const int64_t size = (int64_t(be[0]) << 24) | (int64_t(be[1]) << 16) | (int64_t(be[2]) << 8) | int64_t(be[3]);
    sizes.push_back(size);
    // Checked before multiplying: four 32-bit sizes overflow int64_t.
    TORCH_CHECK(size == 0 || count <= kMaxValues / size, "IDX file ", path, ": declared sizes ", sizes,
                " are implausibly large");
    count *= size;
  }
  // The body is read in chunks, so what is allocated follows the bytes the file holds, not what its header
  // declares (a few bytes of header could otherwise ask for kMaxValues).
  std::vector<uint8_t> body;
  while (static_cast<int64_t>(body.size()) < count) {
    const std::size_t done = body.size();
    const std::size_t chunk = static_cast<std::size_t>(std::min<int64_t>(count - int64_t(done), kChunk));
    body.resize(done + chunk);
    TORCH_CHECK(read_exactly(file.get(), body.data() + done, chunk, path), "IDX file ", path,
                ": truncated (its header declares ", sizes, " values); the file is damaged, reinstall it");
  }
  auto values = torch::empty(sizes, torch::kUInt8);
  if (count > 0) std::memcpy(values.data_ptr<uint8_t>(), body.data(), body.size());
  unsigned char extra = 0;
  TORCH_CHECK(!read_exactly(file.get(), &extra, 1, path), "IDX file ", path,
              ": bytes after the declared ", sizes, " values; the header and the body disagree");
  return values;
}

}  // namespace capaboost
