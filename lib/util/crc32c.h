#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of TFRecord files and so of
// TensorBoard's event files, and its "masked" form that TFRecord stores.
//
//   uint32_t crc = crc32c("123456789");   // 0xE3069283, the standard check value

#include <cstdint>
#include <string_view>

namespace capaboost {

/// CRC-32C of `bytes`.
uint32_t crc32c(std::string_view bytes);

/// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8, so that a CRC stored inside the
/// data it covers does not check itself.
uint32_t masked_crc32c(std::string_view bytes);

}  // namespace capaboost
