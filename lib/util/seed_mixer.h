#pragma once
// Turning structured identities (a seed and a stream, or a text key) into well-spread 64-bit seeds.
// Used wherever a random stream must be a pure function of its identity: CapaBoost masks, epoch orders.

#include <cstdint>
#include <string_view>

namespace capaboost {

/// splitmix64's finaliser (Steele, Lea & Flood 2014): a bijection that spreads every input bit over
/// the whole word, so nearby inputs (seed 42 and 43) give unrelated outputs.
inline uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a of `text`: stable across processes and platforms (std::hash is not).
inline uint64_t fnv1a64(std::string_view text) {
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

/// A well-spread seed for a text key: splitmix64 over FNV-1a, whose low bits alone are weak.
inline uint64_t text_seed(std::string_view text) { return splitmix64(fnv1a64(text)); }

}  // namespace capaboost
