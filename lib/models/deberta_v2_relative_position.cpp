#include "models/deberta_v2_relative_position.h"

namespace capaboost {

torch::Tensor log_bucket_positions(const torch::Tensor& relative, int64_t bucket_size, int64_t max_position) {
  // No check on max_position: like transformers, a table shorter than the buckets (the golden fixtures:
  // 40 positions, 256 buckets) simply never reaches the log branch.
  TORCH_CHECK(bucket_size >= 2, "log_bucket_positions: bucket_size must be >= 2, got ", bucket_size);
  const int64_t mid = bucket_size / 2;
  const auto sign = torch::sign(relative);
  // Distances inside ±mid keep their value; mid − 1 stands in for them so that the log below stays finite.
  const auto inside = relative.lt(mid).logical_and(relative.gt(-mid));
  const auto abs_pos = torch::where(inside, torch::full_like(relative, mid - 1), relative.abs());
  // transformers computes this in float32 (abs_pos / mid promotes the int64 positions to float).
  const auto ratio = abs_pos.to(torch::kFloat) / static_cast<float>(mid);
  // The ratio itself is a Python float (double) made a float32 tensor.
  const auto log_scale =
      torch::log(torch::tensor(static_cast<float>(static_cast<double>(max_position - 1) / static_cast<double>(mid))));
  const auto log_pos = torch::ceil(torch::log(ratio) / log_scale * static_cast<float>(mid - 1)) + static_cast<float>(mid);
  return torch::where(abs_pos.le(mid), relative.to(torch::kFloat), log_pos * sign.to(torch::kFloat)).to(torch::kLong);
}

torch::Tensor deberta_relative_positions(int64_t query_size, int64_t key_size, int64_t bucket_size,
                                         int64_t max_position) {
  const auto q = torch::arange(query_size, torch::kLong);
  const auto k = torch::arange(key_size, torch::kLong);
  auto relative = q.unsqueeze(1) - k.unsqueeze(0);  // (Tq, Tk)
  if (bucket_size > 0 && max_position > 0) relative = log_bucket_positions(relative, bucket_size, max_position);
  return relative;
}

}  // namespace capaboost
