#include "models/rotary_embedding.h"

namespace capaboost {

RotaryTables rotary_tables(const torch::Tensor& position_ids, int64_t head_size, double theta,
                           torch::ScalarType dtype) {
  TORCH_CHECK(position_ids.dim() == 2, "rotary_tables: position_ids must be (B, T), got ", position_ids.sizes());
  TORCH_CHECK(head_size > 0 && head_size % 2 == 0, "rotary_tables: head_size must be positive and even, got ",
              head_size);
  // As transformers' default rope init: θ^(2i/d) in float32 from int64 exponents, then its inverse.
  const auto exponents =
      torch::arange(0, head_size, 2, torch::TensorOptions().dtype(torch::kLong).device(position_ids.device()))
          .to(torch::kFloat) /
      static_cast<double>(head_size);
  const auto inverse_frequency = 1.0 / torch::pow(theta, exponents);                              // (d/2)
  const auto angles = position_ids.to(torch::kFloat).unsqueeze(-1) * inverse_frequency;          // (B, T, d/2)
  const auto doubled = torch::cat({angles, angles}, -1);                                         // (B, T, d)
  return {doubled.cos().to(dtype), doubled.sin().to(dtype)};
}

torch::Tensor apply_rotary(const torch::Tensor& x, const RotaryTables& tables) {
  TORCH_CHECK(x.dim() == 4, "apply_rotary: x must be (B, H, T, d), got ", x.sizes());
  const int64_t half = x.size(-1) / 2;
  const auto cos = tables.cos.unsqueeze(1);  // (B, 1, T, d)
  const auto sin = tables.sin.unsqueeze(1);
  const auto rotated = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos + rotated * sin;
}

}  // namespace capaboost
