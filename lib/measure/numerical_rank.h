#pragma once
// Numerical rank of weight updates by SVD in float64.

#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

namespace capaboost {

struct RankResult {
  int64_t rank = 0;
  double tolerance = 0;           ///< singular values above this count
  torch::Tensor singular_values;  ///< (min(m, n)) float64, descending
};

/// Rank of `matrix` (2-D, any dtype; computed in float64). Default tolerance, as NumPy's matrix_rank:
/// σ_max · max(m, n) · ε(float64).
RankResult numerical_rank(const torch::Tensor& matrix, std::optional<double> tolerance = std::nullopt);

/// Rank of ΔW at every site whose tuner is a linear weight update, in site order.
std::vector<std::pair<std::string, RankResult>> site_ranks(torch::nn::Module& model);

}  // namespace capaboost
