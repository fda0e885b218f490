#include "util/sha256.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace capaboost;

// Expected digests: the FIPS 180-2 examples, cross-checked with coreutils sha256sum.
TEST_CASE("sha256 matches the FIPS 180 test vectors", "[data][sha256]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 pads correctly at the block boundaries", "[data][sha256]") {
  // 55 bytes is the longest message whose padding fits one block; 64 bytes needs a second block.
  CHECK(sha256_hex(std::string(55, 'x')) ==
        "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  CHECK(sha256_hex(std::string(64, 'x')) ==
        "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

TEST_CASE("incremental sha256 equals one-shot for any chunking", "[data][sha256]") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>('a' + (i * 7) % 26);
  const std::string expected = sha256_hex(text);
  for (size_t chunk : {1, 3, 63, 64, 65, 200}) {
    Sha256 hasher;
    for (size_t at = 0; at < text.size(); at += chunk)
      hasher.update(std::string_view(text).substr(at, chunk));
    CHECK(hasher.hex_digest() == expected);
  }
  Sha256 finished;
  finished.hex_digest();
  CHECK_THROWS_WITH(finished.update("more"), Catch::Contains("after hex_digest"));
}

TEST_CASE("sha256 of a file equals sha256 of its bytes, across read chunks, and names a missing file",
          "[data][sha256]") {
  const auto path = (std::filesystem::temp_directory_path() / "capaboost_sha256_file_test.bin").string();
  std::string bytes;
  for (int i = 0; i < (3 << 20) + 5; ++i) bytes += static_cast<char>((i * 131) % 251);  // 3 MiB + 5: chunks of 1 MiB
  for (const std::string& content : {std::string("abc"), std::string(), bytes}) {
    std::ofstream(path, std::ios::binary) << content;
    CHECK(sha256_file_hex(path) == sha256_hex(content));
  }
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(sha256_file_hex(path), Catch::Contains("cannot read") && Catch::Contains(path));
}
