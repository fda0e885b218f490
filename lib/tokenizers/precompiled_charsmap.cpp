#include "tokenizers/precompiled_charsmap.h"

#include <c10/util/Exception.h>

#include <cstring>

namespace capaboost {
namespace {

// darts-clone's unit layout (darts.h, DoubleArrayUnit).
bool has_leaf(uint32_t unit) { return ((unit >> 8) & 1) == 1; }
uint32_t value(uint32_t unit) { return unit & ((1U << 31) - 1); }
uint32_t label(uint32_t unit) { return unit & ((1U << 31) | 0xFF); }
uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1U << 9)) >> 6); }

uint32_t little_endian_u32(const char* bytes) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob, const std::string& source) {
  TORCH_CHECK(blob.size() >= 4, source, ": the precompiled character map is truncated (", blob.size(), " bytes)");
  const uint32_t trie_size = little_endian_u32(blob.data());
  TORCH_CHECK(trie_size % 4 == 0 && trie_size <= blob.size() - 4 && trie_size > 0, source,
              ": the precompiled character map's trie size ", trie_size, " does not fit its ", blob.size(), " bytes");
  units_.resize(trie_size / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) units_[i] = little_endian_u32(blob.data() + 4 + 4 * i);
  normalized_ = std::string(blob.substr(4 + trie_size));
}

std::optional<std::pair<std::string_view, std::size_t>> PrecompiledCharsmap::longest_prefix(std::string_view text) const {
  // darts-clone's commonPrefixSearch, keeping the longest match.
  std::size_t node = 0;
  uint32_t unit = units_[node];
  node ^= offset(unit);
  std::optional<std::pair<uint32_t, std::size_t>> best;  // (value, length)
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<uint8_t>(text[i]);
    node ^= byte;
    if (node >= units_.size()) break;
    unit = units_[node];
    if (label(unit) != byte) break;
    node ^= offset(unit);
    if (node >= units_.size()) break;
    if (has_leaf(unit)) best = std::make_pair(value(units_[node]), i + 1);
  }
  if (!best) return std::nullopt;
  TORCH_CHECK(best->first < normalized_.size(), "precompiled character map: replacement offset ", best->first,
              " outside its ", normalized_.size(), " bytes of strings");
  const char* start = normalized_.data() + best->first;
  return std::make_pair(std::string_view(start, std::strlen(start)), best->second);
}

}  // namespace capaboost
