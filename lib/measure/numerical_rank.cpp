#include "measure/numerical_rank.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sites/site_registry.h"

namespace capaboost {

RankResult numerical_rank(const torch::Tensor& matrix, std::optional<double> tolerance) {
  TORCH_CHECK(matrix.dim() == 2, "numerical_rank: expected a 2-D matrix, got shape ", matrix.sizes());
  torch::NoGradGuard no_grad;
  RankResult result;
  result.rows = matrix.size(0);
  result.cols = matrix.size(1);
  // ATen's linalg_* functions: LibTorch 2.x dropped the torch::linalg namespace (torch/linalg.h) of 1.13.
  result.singular_values = torch::linalg_svdvals(matrix.to(torch::kFloat64).cpu());
  const double sigma_max = result.singular_values.numel() ? result.singular_values[0].item<double>() : 0.0;
  result.tolerance =
      tolerance.value_or(sigma_max * static_cast<double>(std::max(matrix.size(0), matrix.size(1))) *
                         std::numeric_limits<double>::epsilon());
  result.rank = (result.singular_values > result.tolerance).sum().item<int64_t>();
  result.effective_rank = effective_rank(result.singular_values);
  return result;
}

double effective_rank(const torch::Tensor& singular_values) {
  const auto sigma = singular_values.to(torch::kFloat64);
  const double total = sigma.sum().item<double>();
  if (!(total > 0)) return 0.0;
  const auto p = sigma.masked_select(sigma > 0) / total;
  return std::exp(-(p * p.log()).sum().item<double>());
}

double SiteRanks::mean_rank() const {
  double sum = 0;
  for (const auto& [site, rank] : sites) sum += rank.rank;
  return sites.empty() ? 0.0 : sum / sites.size();
}

int64_t SiteRanks::min_rank() const {
  int64_t minimum = sites.empty() ? 0 : std::numeric_limits<int64_t>::max();
  for (const auto& [site, rank] : sites) minimum = std::min(minimum, rank.rank);
  return minimum;
}

double SiteRanks::mean_effective_rank() const {
  double sum = 0;
  for (const auto& [site, rank] : sites) sum += rank.effective_rank;
  return sites.empty() ? 0.0 : sum / sites.size();
}

int64_t SiteRanks::lora_parameters(int64_t rank) const {
  int64_t total = 0;
  for (const auto& [site, result] : sites) total += rank * (result.rows + result.cols);
  return total;
}

nlohmann::json SiteRanks::to_json(int64_t max_values) const {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [site, rank] : sites) {
    const auto values = rank.singular_values.narrow(0, 0, std::min(rank.singular_values.numel(), max_values)).contiguous();
    json[site] = {{"rank", rank.rank},
                  {"tolerance", rank.tolerance},
                  {"effective_rank", rank.effective_rank},
                  {"shape", {rank.rows, rank.cols}},
                  {"singular_values",
                   std::vector<double>(values.data_ptr<double>(), values.data_ptr<double>() + values.numel())}};
  }
  return json;
}

SiteRanks site_ranks(torch::nn::Module& model) {
  SiteRanks ranks;
  for (auto& [name, site] : find_sites(model)) {
    if (!site->tuner()) continue;
    if (auto delta = site->tuner()->delta_weight()) ranks.sites.emplace_back(name, numerical_rank(*delta));
  }
  return ranks;
}

}  // namespace capaboost
