#include "train/multi_tensor_adamw.h"

#include <torch/version.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capaboost {
namespace {

// The key of a parameter's state in Optimizer::state(): a string of its TensorImpl's address in LibTorch
// 1.13, the address itself from 2.x on.
#if TORCH_VERSION_MAJOR >= 2
void* state_key(const torch::Tensor& parameter) { return parameter.unsafeGetTensorImpl(); }
#else
std::string state_key(const torch::Tensor& parameter) { return c10::guts::to_string(parameter.unsafeGetTensorImpl()); }
#endif

// A tensor with a gradient and its AdamW state (null until its first step).
using Slot = std::pair<torch::Tensor, torch::optim::AdamWParamState*>;

}  // namespace

torch::Tensor MultiTensorAdamW::step(LossClosure closure) {
  // A closure makes the gradients only when called, so they cannot be looked at first: AdamW's own step.
  if (closure) return torch::optim::AdamW::step(std::move(closure));
  // One pass, before anything changes, finds each group's tensors and states. A tensor off the GPU,
  // AMSGrad, or two step counts in one group (the bias corrections are per group here) hand the whole
  // step to AdamW's per-tensor loop, so CPU runs keep AdamW's bits.
  std::vector<std::vector<Slot>> groups;
  for (auto& group : param_groups()) {
    if (static_cast<const torch::optim::AdamWOptions&>(group.options()).amsgrad()) return torch::optim::AdamW::step();
    auto& slots = groups.emplace_back();
    std::optional<int64_t> group_step;
    for (const auto& parameter : group.params()) {
      if (!parameter.grad().defined()) continue;
      if (!parameter.is_cuda()) return torch::optim::AdamW::step();
      const auto found = state().find(state_key(parameter));
      auto* adam = found == state().end() ? nullptr : static_cast<torch::optim::AdamWParamState*>(found->second.get());
      const int64_t step = adam ? adam->step() : 0;
      if (group_step && *group_step != step) return torch::optim::AdamW::step();
      group_step = step;
      slots.emplace_back(parameter, adam);
    }
  }
  torch::NoGradGuard no_grad;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) continue;
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(param_groups()[g].options());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    int64_t step = 0;
    for (auto& [parameter, adam] : groups[g]) {
      if (!adam) {
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        adam = fresh.get();
        state()[state_key(parameter)] = std::move(fresh);
      }
      adam->step(adam->step() + 1);
      step = adam->step();
      params.push_back(parameter);
      grads.push_back(parameter.grad());
      exp_avgs.push_back(adam->exp_avg());
      exp_avg_sqs.push_back(adam->exp_avg_sq());
    }
    // AdamW's update in LibTorch's order: decoupled weight decay, the two moments, the bias-corrected step.
    const double lr = options.lr();
    const auto [beta1, beta2] = options.betas();
    if (options.weight_decay() != 0) at::_foreach_mul_(params, 1 - lr * options.weight_decay());
    at::_foreach_mul_(exp_avgs, beta1);
    at::_foreach_add_(exp_avgs, grads, 1 - beta1);
    at::_foreach_mul_(exp_avg_sqs, beta2);
    at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2);
    const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
    const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
    auto denominators = at::_foreach_sqrt(exp_avg_sqs);
    at::_foreach_div_(denominators, std::sqrt(bias_correction2));
    at::_foreach_add_(denominators, options.eps());
    at::_foreach_addcdiv_(params, exp_avgs, denominators, -lr / bias_correction1);
  }
  return {};
}

}  // namespace capaboost
