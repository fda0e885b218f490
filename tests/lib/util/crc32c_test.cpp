#include "util/crc32c.h"

#include <catch2/catch.hpp>

#include <string>

using namespace capaboost;

TEST_CASE("CRC-32C gives the standard check values", "[util][crc32c]") {
  CHECK(crc32c("") == 0x00000000U);
  CHECK(crc32c("123456789") == 0xE3069283U);  // the check value of the Castagnoli polynomial (RFC 3720 B.4)
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAU);  // RFC 3720 B.4: 32 bytes of zeros
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43U);  // and of ones
}

TEST_CASE("the masked CRC is TFRecord's rotation plus constant", "[util][crc32c]") {
  const uint32_t crc = crc32c("123456789");
  CHECK(masked_crc32c("123456789") == ((crc >> 15 | crc << 17) + 0xa282ead8U));
}
