#include "checkpoint/ggml_type.h"

#include <c10/util/Exception.h>

#include <array>

namespace capaboost {
namespace {

// The K-quants and most i-quants work on super-blocks of 256 (ggml's QK_K).
constexpr int64_t kSuperBlock = 256;

struct GgmlTypeTraits {
  GgmlType type;
  const char* name;
  int64_t block_size;
  int64_t type_size;
};

// Block layouts as ggml-common.h defines its block structs (the sizes the `gguf` package's
// GGML_QUANT_SIZES lists too); a type's size is what its tensors occupy in a file, whether or not the
// suite can dequantise it.
constexpr std::array<GgmlTypeTraits, 34> kGgmlTypes = {{
    {GgmlType::kF32, "F32", 1, 4},
    {GgmlType::kF16, "F16", 1, 2},
    {GgmlType::kQ4_0, "Q4_0", 32, 2 + 16},
    {GgmlType::kQ4_1, "Q4_1", 32, 2 + 2 + 16},
    {GgmlType::kQ5_0, "Q5_0", 32, 2 + 4 + 16},
    {GgmlType::kQ5_1, "Q5_1", 32, 2 + 2 + 4 + 16},
    {GgmlType::kQ8_0, "Q8_0", 32, 2 + 32},
    {GgmlType::kQ8_1, "Q8_1", 32, 4 + 4 + 32},
    {GgmlType::kQ2_K, "Q2_K", kSuperBlock, 2 + 2 + kSuperBlock / 16 + kSuperBlock / 4},
    {GgmlType::kQ3_K, "Q3_K", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8 + 12},
    {GgmlType::kQ4_K, "Q4_K", kSuperBlock, 2 + 2 + kSuperBlock / 2 + 12},
    {GgmlType::kQ5_K, "Q5_K", kSuperBlock, 2 + 2 + kSuperBlock / 2 + kSuperBlock / 8 + 12},
    {GgmlType::kQ6_K, "Q6_K", kSuperBlock, 2 + kSuperBlock / 2 + kSuperBlock / 4 + kSuperBlock / 16},
    {GgmlType::kQ8_K, "Q8_K", kSuperBlock, 4 + kSuperBlock + kSuperBlock / 8},
    {GgmlType::kIQ2_XXS, "IQ2_XXS", kSuperBlock, 2 + kSuperBlock / 4},
    {GgmlType::kIQ2_XS, "IQ2_XS", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 32},
    {GgmlType::kIQ3_XXS, "IQ3_XXS", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8},
    {GgmlType::kIQ1_S, "IQ1_S", kSuperBlock, 2 + kSuperBlock / 8 + kSuperBlock / 16},
    {GgmlType::kIQ4_NL, "IQ4_NL", 32, 2 + 16},
    {GgmlType::kIQ3_S, "IQ3_S", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8 + kSuperBlock / 32 + 4},
    {GgmlType::kIQ2_S, "IQ2_S", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 16},
    {GgmlType::kIQ4_XS, "IQ4_XS", kSuperBlock, 2 + 2 + kSuperBlock / 2 + kSuperBlock / 64},
    {GgmlType::kI8, "I8", 1, 1},
    {GgmlType::kI16, "I16", 1, 2},
    {GgmlType::kI32, "I32", 1, 4},
    {GgmlType::kI64, "I64", 1, 8},
    {GgmlType::kF64, "F64", 1, 8},
    {GgmlType::kIQ1_M, "IQ1_M", kSuperBlock, kSuperBlock / 8 + kSuperBlock / 16 + kSuperBlock / 32},
    {GgmlType::kBF16, "BF16", 1, 2},
    {GgmlType::kTQ1_0, "TQ1_0", kSuperBlock, 2 + 4 * 13},
    {GgmlType::kTQ2_0, "TQ2_0", kSuperBlock, 2 + 64},
    {GgmlType::kMXFP4, "MXFP4", 32, 1 + 16},
    {GgmlType::kNVFP4, "NVFP4", 64, 4 + 32},
    {GgmlType::kQ1_0, "Q1_0", 128, 2 + 16},
}};

const GgmlTypeTraits& traits(GgmlType type) {
  for (const auto& entry : kGgmlTypes) {
    if (entry.type == type) return entry;
  }
  // Only a value cast from an unchecked integer gets here: ggml_type_from_code is the way in.
  TORCH_CHECK(false, "ggml type code ", static_cast<uint32_t>(type), " is not a ggml type");
}

}  // namespace

std::string to_string(GgmlType type) { return traits(type).name; }

std::optional<GgmlType> ggml_type_from_code(uint32_t code) {
  for (const auto& entry : kGgmlTypes) {
    if (static_cast<uint32_t>(entry.type) == code) return entry.type;
  }
  return std::nullopt;
}

int64_t ggml_block_size(GgmlType type) { return traits(type).block_size; }

int64_t ggml_type_size(GgmlType type) { return traits(type).type_size; }

}  // namespace capaboost
