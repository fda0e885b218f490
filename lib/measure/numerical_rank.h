#pragma once
// Numerical and effective rank of weight updates by SVD in float64, per tuned site and summarised as
// the paper's Table 1 reports them.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capaboost {

struct RankResult {
  int64_t rank = 0;
  double tolerance = 0;           ///< singular values above this count
  /// exp of the entropy of σ/Σσ (Roy & Vetterli 2007): how many directions carry the update's
  /// weight. Numerical rank alone is min(d·r, n) for almost any weights; this one tells a spread
  /// spectrum from one dominated by a few directions. 0 for the zero matrix.
  double effective_rank = 0;
  int64_t rows = 0, cols = 0;
  torch::Tensor singular_values;  ///< (min(m, n)) float64, descending
};

/// Rank of `matrix` (2-D, any dtype; computed in float64). Default tolerance, as NumPy's matrix_rank:
/// σ_max · max(m, n) · ε(float64).
RankResult numerical_rank(const torch::Tensor& matrix, std::optional<double> tolerance = std::nullopt);

/// exp(−Σ p_i ln p_i) with p = σ / Σσ over the nonzero σ; 0 when every σ is 0.
double effective_rank(const torch::Tensor& singular_values);

/// The ranks of every tuned site whose tuner is a linear weight update, in site order.
struct SiteRanks {
  std::vector<std::pair<std::string, RankResult>> sites;

  bool empty() const { return sites.empty(); }
  double mean_rank() const;
  int64_t min_rank() const;
  double mean_effective_rank() const;
  /// Parameters LoRA of inner dimension `rank` holds on the same sites: Σ rank·(rows + cols), the unit
  /// of Table 1's "#Param" (a factor of LoRA r=8's).
  int64_t lora_parameters(int64_t rank) const;
  /// Per site: rank, tolerance, effective rank and the leading `max_values` singular values.
  nlohmann::json to_json(int64_t max_values = 512) const;
};

/// Rank of ΔW at every site whose tuner is a linear weight update.
SiteRanks site_ranks(torch::nn::Module& model);

}  // namespace capaboost
