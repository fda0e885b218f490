#pragma once
// Rotary position embeddings (Su et al., RoFormer) in transformers' Llama layout: a head's dimensions
// i and i + d/2 form a pair rotated by position × θ^(−2i/d) ("rotate half"). GGUF files store q and k
// projections with their rows permuted to the interleaved layout llama.cpp rotates; the loader undoes
// that (models/llama_gguf.h), so the model only ever sees this layout.
//
//   RotaryTables tables = rotary_tables(position_ids, /*head_size=*/64, /*theta=*/1e5, torch::kFloat);
//   q = apply_rotary(q, tables);   // (B, H, T, 64)

#include <torch/torch.h>

namespace capaboost {

/// cos and sin of every (row, position, dimension): (B, T, d), d = head_size, the frequencies repeated
/// over both halves as transformers' LlamaRotaryEmbedding builds them (in float32, then cast to `dtype`).
struct RotaryTables {
  torch::Tensor cos;  // (B, T, d)
  torch::Tensor sin;  // (B, T, d)
};

/// The tables of `position_ids` (B, T) int64 for heads of width `head_size` (even) and base `theta`.
RotaryTables rotary_tables(const torch::Tensor& position_ids, int64_t head_size, double theta, torch::ScalarType dtype);

/// x · cos + rotate_half(x) · sin, rotate_half(x) = (−x[d/2:], x[:d/2]). x: (B, H, T, d) → (B, H, T, d).
torch::Tensor apply_rotary(const torch::Tensor& x, const RotaryTables& tables);

}  // namespace capaboost
