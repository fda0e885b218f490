#pragma once
// SHA-256 (FIPS 180-4) for data provenance: a run records the digest of every data file it read, so a
// result can be traced to exact bytes and compared with `sha256sum` of the files on disk.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace capaboost {

/// Incremental SHA-256: feed bytes with update(), read the digest once with hex_digest().
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  /// Lower-case hex of the 32-byte digest. Finalises: call at most once, no update() afterwards.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  uint64_t total_bytes_ = 0;
  bool finished_ = false;
};

/// SHA-256 of `bytes` as lower-case hex (what `sha256sum` prints).
std::string sha256_hex(std::string_view bytes);

/// SHA-256 of the file at `path` as lower-case hex, read in chunks; throws naming the path when it
/// cannot be read.
std::string sha256_file_hex(const std::string& path);

}  // namespace capaboost
