#pragma once
// The tensor types of ggml, the numeric codes a GGUF file's tensor table stores (llama.cpp's ggml.h,
// `enum ggml_type`), and the block layout of each: a tensor's rows are cut into blocks of `block_size`
// elements, each stored in `type_size` bytes (plain types are blocks of one element). The codes of
// types ggml has removed (4, 5, 31–33, 36–38) are unknown here, as they are to llama.cpp's `gguf`
// package. Which of these types the suite can turn into float32 is checkpoint/gguf_dequantize.h's
// business.
//
//   std::optional<GgmlType> type = ggml_type_from_code(3);  // kQ4_1 (nullopt for an unknown code)
//   ggml_block_size(*type);                                 // 32 elements
//   ggml_type_size(*type);   // 20 bytes: an f16 scale, an f16 minimum, 16 bytes of 4-bit values

#include <cstdint>
#include <optional>
#include <string>

namespace capaboost {

/// ggml's tensor types with ggml's numeric values.
enum class GgmlType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ2_XXS = 16,
  kIQ2_XS = 17,
  kIQ3_XXS = 18,
  kIQ1_S = 19,
  kIQ4_NL = 20,
  kIQ3_S = 21,
  kIQ2_S = 22,
  kIQ4_XS = 23,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kIQ1_M = 29,
  kBF16 = 30,
  kTQ1_0 = 34,
  kTQ2_0 = 35,
  kMXFP4 = 39,
  kNVFP4 = 40,
  kQ1_0 = 41,
};

/// ggml's name of the type: "F32", "Q4_1", "IQ2_XXS", …
std::string to_string(GgmlType type);

/// The type of a numeric code, or nullopt for a code ggml does not (or no longer) define.
std::optional<GgmlType> ggml_type_from_code(uint32_t code);

/// Elements per block (1 for the plain types F32, F16, BF16, F64 and the integers; 32 or 256 otherwise).
int64_t ggml_block_size(GgmlType type);

/// Bytes per block.
int64_t ggml_type_size(GgmlType type);

}  // namespace capaboost
