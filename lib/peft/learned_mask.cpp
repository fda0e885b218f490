#include "peft/learned_mask.h"

#include <cmath>

namespace capaboost {

int64_t kept_entries(int64_t numel, double keep) {
  TORCH_CHECK(keep > 0.0 && keep <= 1.0, "learned mask: the kept fraction must be in (0, 1], got ", keep);
  return numel - static_cast<int64_t>(std::floor((1.0 - keep) * static_cast<double>(numel)));
}

torch::Tensor learned_mask(const torch::Tensor& scores, double keep) {
  const auto magnitude = scores.abs();
  const int64_t dropped = scores.numel() - kept_entries(scores.numel(), keep);
  torch::Tensor hard;
  {
    torch::NoGradGuard no_grad;
    hard = torch::ones({scores.numel()}, scores.options());
    if (dropped > 0) {
      const auto ascending = std::get<1>(magnitude.flatten().sort());
      hard.index_fill_(0, ascending.narrow(0, 0, dropped), 0.0);
    }
    hard = hard.view(scores.sizes());
  }
  // Value: exactly `hard` (the bracket is 0); gradient: the identity into |s|.
  return hard + (magnitude - magnitude.detach());
}

torch::Tensor initial_mask_scores(torch::IntArrayRef shape, int64_t fan_in) {
  TORCH_CHECK(shape.size() >= 2, "mask scores need at least two dimensions, got ", shape);
  if (fan_in <= 0) {
    fan_in = 1;
    for (size_t i = 1; i < shape.size(); ++i) fan_in *= shape[i];
  }
  // Kaiming-uniform with a = √5: gain √(2 / (1 + 5)), bound gain · √(3 / fan_in) = 1/√fan_in.
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return torch::empty(shape).uniform_(-bound, bound);
}

}  // namespace capaboost
