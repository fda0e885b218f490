#pragma once
// The largest absolute elementwise difference of two tensors, computed in double.

#include <torch/torch.h>

namespace capaboost::testing {

inline double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

}  // namespace capaboost::testing
