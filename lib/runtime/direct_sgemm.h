#pragma once
// Single-precision GEMM straight into the BLAS that LibTorch loaded, without ATen's dispatcher.
//
// Why: attention at GLUE lengths is hundreds of tiny products per layer (batch × heads matrices of
// ~20×64). Through at::addmm_out each costs a dispatch, shape checks and a resize that take longer
// than the product itself; batched_matmul calls this instead for float32.

#include <cstdint>

namespace capaboost::runtime {

/// A row-major matrix operand: element (i, j) is at data[i·row_stride + j·col_stride]. BLAS takes it
/// when one of the two strides is 1 (row- or column-major, with any leading dimension).
struct SgemmOperand {
  const float* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

/// c = alpha · a (m×k) · b (k×n) + beta · c, where c is row-major with leading dimension ldc ≥ n.
/// Returns false without touching c when no Fortran sgemm_ is loaded in the process, a size exceeds
/// BLAS's 32-bit integers, or an operand has no unit stride; the caller then uses ATen. Safe to call
/// from several threads at once (OpenMP OpenBLAS runs single-threaded inside a parallel region).
bool direct_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const SgemmOperand& a, const SgemmOperand& b,
                  float beta, float* c, int64_t ldc);

}  // namespace capaboost::runtime
