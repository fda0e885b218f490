#include "tokenizers/byte_unicode.h"

#include <array>

#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

bool maps_to_itself(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

std::array<char32_t, 256> build_table() {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) table[b] = maps_to_itself(b) ? static_cast<char32_t>(b) : next++;
  return table;
}

const std::array<char32_t, 256>& table() {
  static const std::array<char32_t, 256> kTable = build_table();
  return kTable;
}

}  // namespace

char32_t byte_to_unicode(uint8_t byte) { return table()[byte]; }

std::optional<uint8_t> unicode_to_byte(char32_t cp) {
  // All 256 images lie below U+0144 (the 68 moved bytes take U+0100..U+0143), so an inverse array
  // over that range answers in O(1).
  static const std::array<int16_t, 256 + 68> kInverse = [] {
    std::array<int16_t, 256 + 68> inverse{};
    inverse.fill(-1);
    for (int b = 0; b < 256; ++b) inverse[table()[b]] = static_cast<int16_t>(b);
    return inverse;
  }();
  if (cp >= kInverse.size() || kInverse[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(kInverse[cp]);
}

std::string byte_symbol(uint8_t byte) {
  std::string out;
  append_utf8(out, byte_to_unicode(byte));
  return out;
}

}  // namespace capaboost
