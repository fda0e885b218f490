#pragma once
// Turning ggml's stored blocks into float32: the one dequantiser behind GgufFile::dequantize (a whole
// tensor once, when a model loads) and behind a frozen 4-bit base, which keeps its weights as raw rows
// of blocks (GgufFile::raw_blocks) and dequantises them for every product.
//
// Results equal the `gguf` package's `gguf.quants.dequantize` (0.19.0) bit for bit, the live parity
// test's claim (tests/lib/checkpoint/gguf_file_live_test.cpp). Per block of 32 elements (ggml-common.h):
//   Q8_0  f16 d, 32 × int8 q              x = q·d
//   Q4_0  f16 d, 16 bytes of 4-bit q      x = (q − 8)·d     element j in the low nibble of byte j,
//   Q4_1  f16 d, f16 m, 16 bytes of q     x = q·d + m       element j + 16 in its high nibble
// and element by element: F32 (copied), F16 (widened exactly), BF16 (the upper half of a float32).
// Other ggml types are refused with an error naming the type.
//
//   torch::Tensor blocks = file.raw_blocks("blk.0.ffn_up.weight");            // (1536, 360) uint8
//   torch::Tensor w = dequantize_blocks(blocks, GgmlType::kQ4_1, 576);        // (1536, 576) float32

#include <torch/torch.h>

#include <cstdint>

#include "checkpoint/ggml_type.h"

namespace capaboost {

/// Whether dequantize_blocks takes `type`: F32, F16, BF16, Q8_0, Q4_0 and Q4_1.
bool ggml_type_dequantizable(GgmlType type);

/// Bytes that one row of `columns` elements of `type` takes; throws when `columns` is negative or not a
/// multiple of the type's block size.
int64_t ggml_row_bytes(GgmlType type, int64_t columns);

/// Rows of raw blocks, `blocks` (rows, ggml_row_bytes(type, columns)) uint8 on the CPU (any strides), as
/// float32 (rows, columns). Rows are split over torch's intra-op threads.
torch::Tensor dequantize_blocks(const torch::Tensor& blocks, GgmlType type, int64_t columns);

/// dequantize_blocks into `out`, a contiguous float32 CPU tensor (rows, columns) the caller owns (a
/// buffer reused from one product to the next, or rows of one).
void dequantize_blocks_into(const torch::Tensor& blocks, GgmlType type, const torch::Tensor& out);

}  // namespace capaboost
