#pragma once
// AdaLoRA's budget allocator (Zhang et al., 2023, Algorithm 1) as training hooks over every AdaLoRA
// site of a model:
//  - importance of each entry: I = |w · ∂L/∂w|, smoothed Ī ← β₁Ī + (1 − β₁)I, uncertainty
//    Ū ← β₂Ū + (1 − β₂)|I − Ī|, score s = Ī · Ū; a triplet's score is s(λᵢ) + mean s(Pᵢ,:) + mean s(Q:,ᵢ);
//  - a cubic budget b(t): the initial total rank for the first t_i steps, then
//    b = b_T + (b_0 − b_T)(1 − (t − t_i)/(T − t_i − t_f))³, the target b_T for the last t_f steps;
//  - every `mask_interval` steps (every step in the final phase, where importance is no longer
//    updated) the λ of all but the b(t) highest-scoring triplets, over all sites at once, are zeroed;
//  - the regulariser weight · mean over sites and factors of ‖PPᵀ − I‖_F and ‖QᵀQ − I‖_F.
// t_i and t_f are fractions of the run's steps, so one setting serves tasks of any size.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "peft/adalora.h"
#include "train/training_hooks.h"

namespace capaboost {

struct AdaLoraScheduleOptions {
  /// Fraction of the steps trained at the initial budget before pruning starts (t_i / T).
  TORCH_ARG(double, initial_warmup) = 0.12;
  /// Fraction of the steps trained at the target budget at the end (t_f / T).
  TORCH_ARG(double, final_warmup) = 0.52;
  /// Steps between two budget reallocations while the budget falls (ΔT).
  TORCH_ARG(int64_t, mask_interval) = 10;
  TORCH_ARG(double, beta1) = 0.85;
  TORCH_ARG(double, beta2) = 0.85;
  /// Weight of the orthogonality regulariser (γ).
  TORCH_ARG(double, orthogonality_weight) = 0.1;
};

class AdaLoraAllocator : public TrainingHooks {
 public:
  /// The allocator of `sites` (every AdaLoRA tuner of one model, with their names).
  AdaLoraAllocator(std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>> sites,
                   AdaLoraScheduleOptions options);

  /// The orthogonality regulariser (the model, batch and outputs are not needed).
  torch::Tensor regularization_loss(TaskModelImpl& model, const Batch& batch, const torch::Tensor& outputs) override;
  torch::Tensor orthogonality_loss();
  void after_step(int64_t step, int64_t total_steps) override;
  /// Final rank per site, the budget reached and the schedule's step boundaries.
  nlohmann::json summary() const override;

  /// The total rank budget b(t) after step `step` of `total_steps`, and whether to reallocate then.
  std::pair<int64_t, bool> budget(int64_t step, int64_t total_steps) const;
  int64_t initial_budget() const { return initial_budget_; }
  int64_t target_budget() const { return target_budget_; }

  /// Zeroes the λ of all but the `budget` highest-scoring triplets (scores as of the last update).
  void keep_top(int64_t budget);
  /// Folds the current gradients into the smoothed importance and uncertainty.
  void update_importance();
  /// Each triplet's score, (r) per site, in site order.
  std::vector<torch::Tensor> triplet_scores() const;

 private:
  /// One factor's smoothed importance Ī and uncertainty Ū; undefined until its first gradient.
  struct Smoothed {
    torch::Tensor importance, uncertainty;
  };
  enum Factor { kP = 0, kLambda = 1, kQ = 2 };
  torch::Tensor score(size_t site, Factor factor) const;  // Ī · Ū of one factor

  std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>> sites_;
  AdaLoraScheduleOptions options_;
  int64_t initial_budget_ = 0;
  int64_t target_budget_ = 0;
  int64_t last_budget_ = 0;
  int64_t total_steps_ = 0;
  std::vector<std::array<Smoothed, 3>> smoothed_;  // per site, per Factor
  bool updated_ = false;                           // any importance recorded yet
};

}  // namespace capaboost
