#pragma once
// The counter-based dropout mask of ParallelDropout (models/parallel_dropout.h), as functions every
// kernel that applies it shares (defined in models/parallel_dropout.cpp) (the dropout itself, and fused kernels such as
// models/dropout_residual_layer_norm.h): element i of a tensor keeps iff the 32-bit half i%2 of
// draw(seed, i/2) is ≥ dropout_threshold(p), so the mask depends only on the seed and the position.

#include <cmath>
#include <cstdint>

namespace capaboost {

/// SplitMix64 (Steele, Lea, Flood 2014): the state advances by the golden-ratio increment and each
/// output is a bijective mix of it, so output `counter` is a pure function of (seed, counter). It passes
/// BigCrush.
inline uint64_t dropout_draw(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// round(p·2³²): a 32-bit half at or above it keeps its element, so P(keep) = 1 - p to within 2⁻³².
inline uint64_t dropout_threshold(double p) { return static_cast<uint64_t>(std::llround(std::ldexp(p, 32))); }

/// Whether element `index` keeps under (seed, threshold).
inline bool dropout_keeps(uint64_t seed, uint64_t threshold, int64_t index) {
  const uint64_t bits = dropout_draw(seed, static_cast<uint64_t>(index) / 2);
  return ((index % 2 == 0) ? (bits & 0xFFFFFFFFULL) : (bits >> 32)) >= threshold;
}

/// dst[j] = keeps(first + j) ? src[j]·scale : 0 for j in [0, count): elements [first, first + count) of a
/// tensor under its mask, on one thread, vectorised where the CPU allows (AVX-512); any `first`.
void apply_dropout_mask(const float* src, float* dst, int64_t first, int64_t count, uint64_t seed, uint64_t threshold,
                        float scale);

}  // namespace capaboost
