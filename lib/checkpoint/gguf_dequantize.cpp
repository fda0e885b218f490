#include "checkpoint/gguf_dequantize.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>

// GGUF stores little-endian bytes, which the kernels read in place.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "GGUF dequantisation assumes a little-endian host");

namespace capaboost {
namespace {

// Elements per block of the block types dequantised here (ggml's QK4_0, QK4_1, QK8_0).
constexpr int64_t kBlock = 32;
// Rows go to threads in chunks of at least this many elements (about 100 µs of work): waking a second
// thread costs tens of microseconds, so a smaller matrix is faster on one (a 576 × 1536 Q4_1 matrix took
// 99 µs on two threads against 93 on one, chunked by ATen's 32,768 elements).
constexpr int64_t kElementsPerChunk = 1 << 20;

uint16_t load_u16(const uint8_t* bytes) {
  uint16_t value;
  std::memcpy(&value, bytes, sizeof value);  // blocks of 18, 20 or 34 bytes leave scales unaligned
  return value;
}

float float_of_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t bits_of_float(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// IEEE half to float, exactly, by its bits: every half is a float. NaNs keep their payload and their
// quiet bit, as numpy's conversion (the oracle's) does; a conversion through float arithmetic would
// quiet a signalling NaN.
float half_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) return float_of_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  // A normal half: rebias the exponent from 15 to 127.
  if (exponent != 0) return float_of_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa · 2⁻²⁴, exact in float (at most 10 significant bits).
  return float_of_bits(sign | bits_of_float(static_cast<float>(mantissa) * 0x1p-24f));
}

// The loops are written so the compiler vectorises them, a block's 16 or 32 elements at a time (`omp simd`:
// the file is compiled with OpenMP, lib/CMakeLists.txt). The BF16 and Q8_0 kernels are also compiled for
// AVX-512 and AVX2 (GCC's target_clones, as models/exact_gelu.cpp; the loader picks the clone for the CPU).
// Measured on the AMD EPYC of docs/performance.md, a loop over the rows of a 576 × 1536 matrix outside the
// suite: the clones took Q8_0 from 73 to 45 µs, but Q4_1 from 84 to 100 µs, so the 4-bit kernels have
// none; hand-written AVX2 for Q4_1 (59 µs) is not worth a second code path while a product at a training
// batch (2,048 tokens) takes a hundred times as long as dequantising its weight.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPABOOST_GGUF_KERNEL __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CAPABOOST_GGUF_KERNEL
#endif

// One row per call: `source` holds the row's blocks, `target` its `columns` floats.
using RowKernel = void (*)(const uint8_t* source, float* target, int64_t columns);

void f32_row(const uint8_t* source, float* target, int64_t columns) {
  std::memcpy(target, source, static_cast<std::size_t>(columns) * sizeof(float));
}

void f16_row(const uint8_t* source, float* target, int64_t columns) {
  for (int64_t i = 0; i < columns; ++i) target[i] = half_to_float(load_u16(source + 2 * i));
}

// bfloat16 is the upper half of a float32's bits.
CAPABOOST_GGUF_KERNEL void bf16_row(const uint8_t* source, float* target, int64_t columns) {
#pragma omp simd
  for (int64_t i = 0; i < columns; ++i) target[i] = float_of_bits(static_cast<uint32_t>(load_u16(source + 2 * i)) << 16);
}

// Each product q·d below is exact in float32 (a 4- or 8-bit integer times a half's 11-bit significand), so
// the only rounding is Q4_1's addition of m, the same one numpy makes: a fused multiply-add, where a
// compiler chooses one, gives the same bits.

CAPABOOST_GGUF_KERNEL void q8_0_row(const uint8_t* source, float* target, int64_t columns) {
  constexpr int64_t kBytes = 2 + kBlock;
  for (int64_t block = 0; block < columns / kBlock; ++block) {
    const uint8_t* bytes = source + block * kBytes;
    const float scale = half_to_float(load_u16(bytes));
    const auto* values = reinterpret_cast<const int8_t*>(bytes + 2);
    float* out = target + block * kBlock;
#pragma omp simd
    for (int64_t i = 0; i < kBlock; ++i) out[i] = static_cast<float>(values[i]) * scale;
  }
}

void q4_0_row(const uint8_t* source, float* target, int64_t columns) {
  constexpr int64_t kBytes = 2 + kBlock / 2;
  for (int64_t block = 0; block < columns / kBlock; ++block) {
    const uint8_t* bytes = source + block * kBytes;
    const float scale = half_to_float(load_u16(bytes));
    const uint8_t* nibbles = bytes + 2;
    float* out = target + block * kBlock;
#pragma omp simd
    for (int64_t i = 0; i < kBlock / 2; ++i) {
      out[i] = static_cast<float>(static_cast<int32_t>(nibbles[i] & 0x0f) - 8) * scale;
      out[i + kBlock / 2] = static_cast<float>(static_cast<int32_t>(nibbles[i] >> 4) - 8) * scale;
    }
  }
}

void q4_1_row(const uint8_t* source, float* target, int64_t columns) {
  constexpr int64_t kBytes = 2 + 2 + kBlock / 2;
  for (int64_t block = 0; block < columns / kBlock; ++block) {
    const uint8_t* bytes = source + block * kBytes;
    const float scale = half_to_float(load_u16(bytes));
    const float minimum = half_to_float(load_u16(bytes + 2));
    const uint8_t* nibbles = bytes + 4;
    float* out = target + block * kBlock;
#pragma omp simd
    for (int64_t i = 0; i < kBlock / 2; ++i) {
      out[i] = static_cast<float>(nibbles[i] & 0x0f) * scale + minimum;
      out[i + kBlock / 2] = static_cast<float>(nibbles[i] >> 4) * scale + minimum;
    }
  }
}

RowKernel row_kernel(GgmlType type) {
  switch (type) {
    case GgmlType::kF32: return f32_row;
    case GgmlType::kF16: return f16_row;
    case GgmlType::kBF16: return bf16_row;
    case GgmlType::kQ8_0: return q8_0_row;
    case GgmlType::kQ4_0: return q4_0_row;
    case GgmlType::kQ4_1: return q4_1_row;
    default: return nullptr;
  }
}

// The kernel of `type`, once `blocks` is checked to hold rows of `columns` elements of it.
RowKernel checked_kernel(const torch::Tensor& blocks, GgmlType type, int64_t columns) {
  const RowKernel kernel = row_kernel(type);
  TORCH_CHECK(kernel != nullptr, "cannot dequantise ggml type ", to_string(type),
              ": the suite dequantises F32, F16, BF16, Q8_0, Q4_0 and Q4_1");
  TORCH_CHECK(blocks.defined() && blocks.dim() == 2 && blocks.scalar_type() == torch::kUInt8 && blocks.is_cpu(),
              "dequantize_blocks: the blocks must be a 2-D uint8 CPU tensor (rows, bytes per row)");
  const int64_t row_bytes = ggml_row_bytes(type, columns);
  TORCH_CHECK(blocks.size(1) == row_bytes, "dequantize_blocks: a row of ", columns, " ", to_string(type),
              " elements takes ", row_bytes, " bytes, but the blocks have ", blocks.size(1), " per row");
  return kernel;
}

}  // namespace

bool ggml_type_dequantizable(GgmlType type) { return row_kernel(type) != nullptr; }

int64_t ggml_row_bytes(GgmlType type, int64_t columns) {
  const int64_t block_size = ggml_block_size(type);
  TORCH_CHECK(columns >= 0 && columns % block_size == 0, "a row of ", to_string(type), " holds whole blocks of ",
              block_size, " elements, but has ", columns, " columns");
  int64_t bytes = 0;
  TORCH_CHECK(!__builtin_mul_overflow(columns / block_size, ggml_type_size(type), &bytes), "a row of ", columns,
              " ", to_string(type), " elements takes more than 2^63 bytes");
  return bytes;
}

torch::Tensor dequantize_blocks(const torch::Tensor& blocks, GgmlType type, int64_t columns) {
  checked_kernel(blocks, type, columns);
  auto out = torch::empty({blocks.size(0), columns}, torch::kFloat32);
  dequantize_blocks_into(blocks, type, out);
  return out;
}

void dequantize_blocks_into(const torch::Tensor& blocks, GgmlType type, const torch::Tensor& out) {
  TORCH_CHECK(out.defined() && out.dim() == 2 && out.scalar_type() == torch::kFloat32 && out.is_cpu() &&
                  out.is_contiguous(),
              "dequantize_blocks: the output must be a contiguous 2-D float32 CPU tensor (rows, columns)");
  const int64_t columns = out.size(1);
  const RowKernel kernel = checked_kernel(blocks, type, columns);
  const int64_t rows = blocks.size(0);
  TORCH_CHECK(out.size(0) == rows, "dequantize_blocks: ", rows, " rows of blocks but an output of ", out.size(0),
              " rows");
  if (rows == 0 || columns == 0) return;
  // Each row's bytes must be consecutive; rows themselves may be strided (a slice of a larger table).
  const torch::Tensor source = blocks.stride(1) == 1 ? blocks : blocks.contiguous();
  const uint8_t* first_row = source.data_ptr<uint8_t>();
  const int64_t row_stride = source.stride(0);
  float* target = out.data_ptr<float>();
  const int64_t grain = std::max<int64_t>(1, kElementsPerChunk / columns);
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) kernel(first_row + row * row_stride, target + row * columns, columns);
  });
}

}  // namespace capaboost
