#include "measure/numerical_rank.h"

#include <limits>

#include "sites/site_registry.h"

namespace capaboost {

RankResult numerical_rank(const torch::Tensor& matrix, std::optional<double> tolerance) {
  TORCH_CHECK(matrix.dim() == 2, "numerical_rank: expected a 2-D matrix, got shape ", matrix.sizes());
  torch::NoGradGuard no_grad;
  RankResult result;
  result.singular_values = torch::linalg::svdvals(matrix.to(torch::kFloat64).cpu(), c10::nullopt);
  const double sigma_max = result.singular_values.numel() ? result.singular_values[0].item<double>() : 0.0;
  result.tolerance =
      tolerance.value_or(sigma_max * static_cast<double>(std::max(matrix.size(0), matrix.size(1))) *
                         std::numeric_limits<double>::epsilon());
  result.rank = (result.singular_values > result.tolerance).sum().item<int64_t>();
  return result;
}

std::vector<std::pair<std::string, RankResult>> site_ranks(torch::nn::Module& model) {
  std::vector<std::pair<std::string, RankResult>> ranks;
  for (auto& [name, site] : find_sites(model)) {
    if (!site->tuner()) continue;
    if (auto delta = site->tuner()->delta_weight()) ranks.emplace_back(name, numerical_rank(*delta));
  }
  return ranks;
}

}  // namespace capaboost
