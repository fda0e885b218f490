#pragma once
// e^v for v ≤ 0 in a form compilers vectorise (std::exp is a library call per element), for the suite's
// CPU row kernels (models/softmax_rows.cpp, models/exact_gelu.cpp). Header-only and inline: each kernel
// file compiles it into its own AVX-512 and generic clones.

#include <cstdint>
#include <cstring>

namespace capaboost {

/// e^v for v ≤ 0. Cephes' expf: v = n·ln 2 + r with |r| ≤ ln 2 / 2 (n rounded by adding 1.5·2²³, ln 2
/// in two parts so n·ln 2 is exact), e^r by its degree-7 polynomial, 2ⁿ built in the exponent bits;
/// within 2 ulp of e^v. Below −87 (under 2⁻¹²⁵) it returns 0: a softmax row's masked positions
/// (−3.4e38, next to its maximum's e⁰ = 1) and the normal distribution's tail past 13 σ land there.
/// NaN stays NaN.
inline float exp_of_nonpositive(float v) {
  constexpr float kLog2e = 1.44269504088896341f, kRound = 12582912.0f;
  constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
  const float clamped = v < -87.0f ? -87.0f : v;
  const float n = (clamped * kLog2e + kRound) - kRound;
  const float r = clamped - n * kLn2High - n * kLn2Low;
  float q = 1.9875691500e-4f;
  q = q * r + 1.3981999507e-3f;
  q = q * r + 8.3334519073e-3f;
  q = q * r + 4.1665795894e-2f;
  q = q * r + 1.6666665459e-1f;
  q = q * r + 5.0000001201e-1f;
  const float e_r = q * r * r + r + 1.0f;
  const int32_t exponent_bits = (static_cast<int32_t>(n) + 127) << 23;
  float two_to_n;
  std::memcpy(&two_to_n, &exponent_bits, sizeof(two_to_n));
  return v < -87.0f ? 0.0f : e_r * two_to_n;
}

}  // namespace capaboost
