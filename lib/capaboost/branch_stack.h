#pragma once
// The CapaBoost combinator: d weight-tied branches of a factorised tuner as ONE stacked product.
//
// Branch i sees factor ⊙ M_i. For a low-rank tuner Δ(x) = Σᵢ (x (A⊙Ma_i)ᵀ)(B⊙Mb_i)ᵀ equals
// (x A_catᵀ) B_catᵀ with A_cat = [A⊙Ma_1; …; A⊙Ma_d] (d·r, in) and B_cat = [B⊙Mb_1, …, B⊙Mb_d]
// (out, d·r): one GEMM pair of inner size d·r, one set of dense factors and optimizer state, and
// autograd sums the branch gradients. Adapters stack the same way because their nonlinearity is
// elementwise over the bottleneck.

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "capaboost/mask.h"

namespace capaboost {

struct CapaBoostOptions {
  /// d, the number of weight-tied branches; 1 with mask kind none is the plain tuner.
  TORCH_ARG(int64_t, branches) = 1;
  TORCH_ARG(MaskOptions, mask) = MaskOptions().kind(MaskKind::kNone).density(1.0);
  /// When set, replaces the random masks of every kind that masks (all but none) with a variant's own
  /// rule, e.g. structured masks; under the dropout kind it is asked every training step (key.step).
  TORCH_ARG(MaskRule, rule) = nullptr;
};

/// Stacks the masked branches of a tuner's factors. One instance per tuner; masks of static kinds are
/// generated once per factor and cached (never saved: they are a function of seed, site and factor).
class BranchStack {
 public:
  BranchStack(CapaBoostOptions options, std::string site);

  /// Advances the dropout kind's step counter; tuners call it once per training forward.
  void next_step() { ++step_; }

  /// weight: (rows, cols). branch_dim 0 gives (d·rows, cols) with row block i = weight ⊙ M_i;
  /// branch_dim 1 gives (rows, d·cols) with column block i = weight ⊙ M_i. In eval mode the dropout
  /// kind uses its expectation, weight·density, in every branch (the dropout-inference convention
  /// without inverse scaling at training time). d = 1 with kind none returns `weight` itself.
  torch::Tensor stack(const std::string& factor, const torch::Tensor& weight, int64_t branch_dim,
                      bool training);

  /// The boolean mask branch `branch` applies to `factor` of `shape` (current step for dropout).
  torch::Tensor branch_mask(const std::string& factor, int64_t branch, torch::IntArrayRef shape) const;

  /// Entries of a factor of `shape` that at least one branch sees (the union of the branch masks);
  /// every entry for the dropout kind, whose masks cover the whole factor over training.
  int64_t effective_count(const std::string& factor, torch::IntArrayRef shape) const;

  /// Entries kept by one branch's mask of `factor` (the mean over branches for a rule's masks).
  int64_t kept_per_branch(const std::string& factor, torch::IntArrayRef shape) const;

  /// The stacked masks the forwards applied, one per factor in name order, on the CPU: static kinds
  /// after the first forward; none before it, for the dropout kind (redrawn every step) and for d = 1
  /// without masks.
  std::vector<torch::Tensor> applied_masks() const;

  const CapaBoostOptions& options() const { return options_; }
  int64_t branches() const { return options_.branches(); }
  const std::string& site() const { return site_; }

 private:
  // Masks of all branches in stacked layout: (d, rows, cols) for branch_dim 0, (rows, d, cols) for 1.
  torch::Tensor stacked_masks(const std::string& factor, const torch::Tensor& weight, int64_t branch_dim);

  CapaBoostOptions options_;
  std::string site_;
  int64_t step_ = 0;
  std::map<std::string, torch::Tensor> cache_;
};

}  // namespace capaboost
