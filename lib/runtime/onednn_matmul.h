#pragma once
// Batched fp32 matrix products through oneDNN's matmul primitive, on strided views, in one call.
//
// Why: attention's products are hundreds of small matrices (batch × heads of 128×64 at RoBERTa-base's
// shape). One GEMM per matrix on one thread each reaches ~40 GFLOP/s on a 2-core AMD EPYC (OpenBLAS's
// small-matrix kernels); oneDNN's batched brgemm kernels take the whole batch, reading the heads in
// place through their strides, at ~170-210 GFLOP/s on the same machine (bench/roberta_bench.cpp,
// BM_AttentionScores). LibTorch already loads the system's oneDNN (libdnnl.so.2) for its bf16 kernels.

#include <torch/torch.h>

namespace capaboost::runtime {

/// out = alpha · a @ b for every matrix of the batch: a (…, n, k), b (…, k, m), out (…, n, m) contiguous,
/// all float32 with equal batch shapes (no broadcasting); a and b may be strided views. Returns false,
/// leaving `out` untouched, when oneDNN refuses the layout (the caller then uses another path).
bool onednn_batched_matmul(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, double alpha);

/// Whether onednn_batched_matmul can run here: false when the suite was compiled against oneDNN 3
/// headers (those a LibTorch 2.x wheel bundles ahead of the system's oneDNN 2, which is the one linked);
/// onednn_batched_matmul then declines every call.
bool onednn_matmul_available();

}  // namespace capaboost::runtime
