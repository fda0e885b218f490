#include "train/multi_tensor_adamw.h"

#include <torch/version.h>

#include <cmath>
#include <optional>
#include <string>
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

}  // namespace

torch::Tensor MultiTensorAdamW::step(LossClosure closure) {
  if (!multi_tensor_applies()) return torch::optim::AdamW::step(std::move(closure));
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    int64_t step = 0;
    for (const auto& parameter : group.params()) {
      if (!parameter.grad().defined()) continue;
      auto& slot = state()[state_key(parameter)];
      if (!slot) {
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*slot);
      state.step(state.step() + 1);
      step = state.step();
      params.push_back(parameter);
      grads.push_back(parameter.grad());
      exp_avgs.push_back(state.exp_avg());
      exp_avg_sqs.push_back(state.exp_avg_sq());
    }
    if (params.empty()) continue;
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
  return loss;
}

// Every tensor with a gradient on a GPU, no AMSGrad, and one step count per group (the fresh ones at 0).
bool MultiTensorAdamW::multi_tensor_applies() {
  for (auto& group : param_groups()) {
    if (static_cast<const torch::optim::AdamWOptions&>(group.options()).amsgrad()) return false;
    std::optional<int64_t> group_step;
    for (const auto& parameter : group.params()) {
      if (!parameter.grad().defined()) continue;
      if (!parameter.is_cuda()) return false;
      const auto found = state().find(state_key(parameter));
      const int64_t step =
          found == state().end() ? 0 : static_cast<const torch::optim::AdamWParamState&>(*found->second).step();
      if (group_step && *group_step != step) return false;
      group_step = step;
    }
  }
  return true;
}

}  // namespace capaboost
