#include "runtime/direct_sgemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <limits>

namespace capaboost::runtime {
namespace {

using FortranSgemm = void (*)(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                              const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                              const float* beta, float* c, const int* ldc);

// Looked up, not linked: the BLAS is whichever libblas.so.3 LibTorch loaded (OpenBLAS here), and
// resolving through the global scope guarantees the same library ATen uses.
FortranSgemm loaded_sgemm() {
  static const FortranSgemm fn = reinterpret_cast<FortranSgemm>(dlsym(RTLD_DEFAULT, "sgemm_"));
  return fn;
}

bool fits_int(int64_t value) { return value >= 0 && value <= std::numeric_limits<int>::max(); }

// How BLAS (column-major) reads a row-major operand of `rows`×`cols` as its transpose: a row-major
// matrix with unit column stride is, in column-major terms, the transpose stored plainly ('N');
// one with unit row stride is the matrix itself and must be transposed ('T').
bool transposed_view(const SgemmOperand& x, int64_t rows, int64_t cols, char& op, int64_t& ld) {
  if (x.col_stride == 1 && x.row_stride >= std::max<int64_t>(1, cols)) {
    op = 'N';
    ld = x.row_stride;
    return true;
  }
  if (x.row_stride == 1 && x.col_stride >= std::max<int64_t>(1, rows)) {
    op = 'T';
    ld = x.col_stride;
    return true;
  }
  return false;
}

}  // namespace

bool direct_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const SgemmOperand& a, const SgemmOperand& b,
                  float beta, float* c, int64_t ldc) {
  const FortranSgemm sgemm = loaded_sgemm();
  if (sgemm == nullptr || !fits_int(m) || !fits_int(n) || !fits_int(k) || ldc < std::max<int64_t>(1, n)) {
    return false;
  }
  char op_a = 'N', op_b = 'N';
  int64_t ld_a = 0, ld_b = 0;
  if (!transposed_view(a, m, k, op_a, ld_a) || !transposed_view(b, k, n, op_b, ld_b)) return false;
  if (!fits_int(ld_a) || !fits_int(ld_b) || !fits_int(ldc)) return false;
  if (m == 0 || n == 0) return true;
  // Row-major c = a·b is column-major cᵀ = bᵀ·aᵀ: BLAS gets b first.
  const int mi = static_cast<int>(n), ni = static_cast<int>(m), ki = static_cast<int>(k);
  const int lda = static_cast<int>(ld_b), ldb = static_cast<int>(ld_a), ldci = static_cast<int>(ldc);
  sgemm(&op_b, &op_a, &mi, &ni, &ki, &alpha, b.data, &lda, a.data, &ldb, &beta, c, &ldci);
  return true;
}

}  // namespace capaboost::runtime
