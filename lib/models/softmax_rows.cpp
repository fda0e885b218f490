#include "models/softmax_rows.h"

#include <limits>

#include "models/vector_exp.h"

namespace capaboost {

// As in models/dropout_residual_layer_norm.cpp: the row kernels are compiled for AVX-512 and for the
// build's generic x86-64, the loader picks the clone; sums and maxima are `omp simd` reductions (the file
// is compiled with OpenMP, lib/CMakeLists.txt).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPABOOST_SOFTMAX_KERNEL __attribute__((target_clones("avx512f", "default")))
#else
#define CAPABOOST_SOFTMAX_KERNEL
#endif

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
