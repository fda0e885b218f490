#pragma once
// Batched matrix products for attention, threaded over the batch instead of inside each small GEMM.

#include <torch/torch.h>

namespace capaboost {

/// alpha · a @ b for every matrix of the batch: a (…, n, k), b (…, k, m) → (…, n, m), contiguous. The
/// batch dimensions of a and b must be equal (no broadcasting). Differentiable in a and b.
///
/// Same result as `torch::matmul(a, b) * alpha` up to rounding, but faster for attention-sized
/// matrices: LibTorch 1.13's CPU bmm walks the batch serially and lets the BLAS open a parallel region
/// for every 128×64 GEMM, which costs more than the GEMM itself. Here the batch is split across torch's
/// threads once and each GEMM runs on one thread (bench/roberta_bench.cpp, BM_AttentionScores, q kᵀ
/// at RoBERTa-base shape, 2 threads: 15.2 ms → 3.9 ms). float32 products go to oneDNN's batched matmul
/// over the whole batch (runtime/onednn_matmul.h), else straight to the loaded BLAS's sgemm
/// (runtime/direct_sgemm.h): at GLUE lengths (~20 tokens) ATen's per-call overhead on each tiny
/// matrix costs more than the product. Inputs may be strided views whose matrices have a
/// unit stride in either dimension — heads split off a (B, T, C) projection by view + permute are used
/// without a copy. Under CPU autocast (a bf16 run, runtime/precision.h) it is autocast's torch::matmul:
/// operands of either dtype, the product in autocast's precision.
torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b, double alpha = 1.0);

/// out = alpha · a @ b through the loaded BLAS's sgemm, one matrix per call, the batch split over torch's
/// threads: the float32 path batched_matmul takes when oneDNN declines a layout. Same operands as above,
/// out (…, n, m) contiguous float32. Returns false, leaving `out` untouched, when the BLAS cannot take the
/// layout. Public so that bench/head_products_bench.cpp can time it against oneDNN's batch.
bool batched_matmul_blas(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, double alpha);

}  // namespace capaboost
