#include "peft/adalora_allocator.h"

#include <cmath>

namespace capaboost {
namespace {

// P, λ and Q of a site in AdaLoraAllocator::Factor order.
const torch::Tensor& factor(const AdaLoraImpl& site, int index) {
  return index == 0 ? site.lora_A : index == 1 ? site.lora_E : site.lora_B;
}

}  // namespace

AdaLoraAllocator::AdaLoraAllocator(std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>> sites,
                                   AdaLoraScheduleOptions options)
    : sites_(std::move(sites)), options_(options) {
  TORCH_CHECK(!sites_.empty(), "AdaLoRA allocator: the model has no AdaLoRA sites");
  TORCH_CHECK(options_.initial_warmup() >= 0 && options_.final_warmup() >= 0 &&
                  options_.initial_warmup() + options_.final_warmup() < 1.0,
              "AdaLoRA: initial_warmup (", options_.initial_warmup(), ") and final_warmup (", options_.final_warmup(),
              ") are fractions of the run's steps and must leave steps between them (sum < 1)");
  TORCH_CHECK(options_.mask_interval() > 0, "AdaLoRA: mask_interval must be positive, got ", options_.mask_interval());
  for (const auto& [name, site] : sites_) {
    initial_budget_ += site->options.initial_rank();
    target_budget_ += site->options.target_rank();
  }
  last_budget_ = initial_budget_;
  smoothed_.resize(sites_.size());
}

std::pair<int64_t, bool> AdaLoraAllocator::budget(int64_t step, int64_t total_steps) const {
  const auto initial_steps = static_cast<int64_t>(std::llround(options_.initial_warmup() * total_steps));
  const auto final_steps = static_cast<int64_t>(std::llround(options_.final_warmup() * total_steps));
  if (step <= initial_steps) return {initial_budget_, false};
  if (step > total_steps - final_steps) return {target_budget_, true};
  const double falling = static_cast<double>(total_steps - final_steps - initial_steps);
  const double remaining = 1.0 - static_cast<double>(step - initial_steps) / falling;
  // Truncated toward zero, as the reference's int().
  const auto budget = static_cast<int64_t>(static_cast<double>(initial_budget_ - target_budget_) *
                                               remaining * remaining * remaining +
                                           static_cast<double>(target_budget_));
  return {budget, step % options_.mask_interval() == 0};
}

torch::Tensor AdaLoraAllocator::regularization_loss(TaskModelImpl&, const Batch&, const torch::Tensor&) {
  return orthogonality_loss();
}

torch::Tensor AdaLoraAllocator::orthogonality_loss() {
  if (options_.orthogonality_weight() == 0) return {};
  torch::Tensor sum;
  int64_t terms = 0;
  for (const auto& [name, site] : sites_) {
    const int64_t r = site->options.initial_rank();
    const auto identity = torch::eye(r, site->lora_A.options());
    const auto rows = torch::mm(site->lora_A, site->lora_A.t()) - identity;     // P Pᵀ − I: (r, r)
    const auto columns = torch::mm(site->lora_B.t(), site->lora_B) - identity;  // Qᵀ Q − I: (r, r)
    const auto both = torch::frobenius_norm(rows, {0, 1}) + torch::frobenius_norm(columns, {0, 1});
    sum = sum.defined() ? sum + both : both;
    terms += 2;
  }
  return sum * (options_.orthogonality_weight() / static_cast<double>(terms));
}

void AdaLoraAllocator::update_importance() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < sites_.size(); ++i) {
    for (int f = kP; f <= kQ; ++f) {
      const torch::Tensor& weight = factor(*sites_[i].second, f);
      const torch::Tensor& gradient = weight.grad();
      if (!gradient.defined()) continue;
      const auto importance = (weight * gradient).abs();
      Smoothed& state = smoothed_[i][f];
      if (!state.importance.defined()) {
        state.importance = torch::zeros_like(importance);
        state.uncertainty = torch::zeros_like(importance);
      }
      updated_ = true;
      // The uncertainty is measured against the freshly smoothed importance, as the reference does.
      state.importance.mul_(options_.beta1()).add_(importance, 1.0 - options_.beta1());
      state.uncertainty.mul_(options_.beta2()).add_((importance - state.importance).abs(), 1.0 - options_.beta2());
    }
  }
}

torch::Tensor AdaLoraAllocator::score(size_t site, Factor which) const {
  const Smoothed& state = smoothed_[site][which];
  // A factor that never received a gradient (its site unused so far) has no importance yet.
  if (!state.importance.defined()) return torch::zeros_like(factor(*sites_[site].second, which));
  return state.importance * state.uncertainty;
}

std::vector<torch::Tensor> AdaLoraAllocator::triplet_scores() const {
  std::vector<torch::Tensor> scores;
  for (size_t i = 0; i < sites_.size(); ++i) {
    const auto lambda = score(i, kLambda).view(-1);  // (r)
    const auto rows = score(i, kP).mean(1);          // (r): mean over P's row
    const auto columns = score(i, kQ).mean(0);       // (r): mean over Q's column
    scores.push_back(lambda + rows + columns);
  }
  return scores;
}

void AdaLoraAllocator::keep_top(int64_t budget) {
  const int64_t pruned = initial_budget_ - budget;
  if (pruned <= 0 || !updated_) return;
  torch::NoGradGuard no_grad;
  const auto scores = triplet_scores();
  const auto threshold = std::get<0>(torch::kthvalue(torch::cat(scores), pruned));
  for (size_t i = 0; i < sites_.size(); ++i) {
    sites_[i].second->lora_E.masked_fill_(scores[i].le(threshold).view({-1, 1}), 0.0);
  }
}

void AdaLoraAllocator::after_step(int64_t step, int64_t total_steps) {
  total_steps_ = total_steps;
  const auto final_steps = static_cast<int64_t>(std::llround(options_.final_warmup() * total_steps));
  // Importance stops updating when the final phase starts, so the final allocation holds still.
  if (step < total_steps - final_steps) update_importance();
  const auto [budget_now, reallocate] = budget(step, total_steps);
  if (reallocate) keep_top(budget_now);
  last_budget_ = budget_now;
}

nlohmann::json AdaLoraAllocator::summary() const {
  nlohmann::json ranks = nlohmann::json::object();
  int64_t total = 0;
  for (const auto& [name, site] : sites_) {
    const int64_t rank = site->active_rank();
    ranks[name] = rank;
    total += rank;
  }
  return {{"adalora",
           {{"initial_budget", initial_budget_},
            {"target_budget", target_budget_},
            {"scheduled_budget", last_budget_},
            {"active_rank_total", total},
            {"active_ranks", ranks},
            {"steps", total_steps_}}}};
}

}  // namespace capaboost
