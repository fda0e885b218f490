#include "models/softmax_rows.h"

#include <cstring>
#include <limits>

namespace capaboost {
namespace {

// As in models/dropout_residual_layer_norm.cpp: the row kernels are compiled for AVX-512 and for the
// build's generic x86-64, the loader picks the clone; sums and maxima are `omp simd` reductions (the file
// is compiled with OpenMP, lib/CMakeLists.txt).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPABOOST_SOFTMAX_KERNEL __attribute__((target_clones("avx512f", "default")))
#else
#define CAPABOOST_SOFTMAX_KERNEL
#endif

// e^v for v ≤ 0 (a row's scores less their maximum), written so the compiler vectorises it: std::exp
// is a library call per element. Cephes' expf: v = n·ln 2 + r with |r| ≤ ln 2 / 2 (n rounded by adding
// 1.5·2²³, ln 2 in two parts so n·ln 2 is exact), e^r by its degree-7 polynomial, 2ⁿ built in the
// exponent bits; within 2 ulp of e^v. Below −87 (under 2⁻¹²⁵, next to a row maximum's e⁰ = 1) it
// returns 0, as e^v rounds to in the row's sum; masked positions (−3.4e38) land there.
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

}  // namespace

CAPABOOST_SOFTMAX_KERNEL void softmax_row(const float* x, const float* mask, float* y, int64_t L) {
  float top = -std::numeric_limits<float>::infinity();
  if (mask != nullptr) {
#pragma omp simd reduction(max : top)
    for (int64_t j = 0; j < L; ++j) {
      y[j] = x[j] + mask[j];
      top = y[j] > top ? y[j] : top;
    }
  } else {
#pragma omp simd reduction(max : top)
    for (int64_t j = 0; j < L; ++j) {
      y[j] = x[j];
      top = y[j] > top ? y[j] : top;
    }
  }
  float total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < L; ++j) {
    y[j] = exp_of_nonpositive(y[j] - top);
    total += y[j];
  }
  const float inverse = 1.0f / total;
#pragma omp simd
  for (int64_t j = 0; j < L; ++j) y[j] *= inverse;
}

CAPABOOST_SOFTMAX_KERNEL void softmax_backward_row(const float* y, const float* g, float* grad, int64_t L) {
  float dot = 0;
#pragma omp simd reduction(+ : dot)
  for (int64_t j = 0; j < L; ++j) dot += g[j] * y[j];
#pragma omp simd
  for (int64_t j = 0; j < L; ++j) grad[j] = y[j] * (g[j] - dot);
}

}  // namespace capaboost
