#include "train/optimizer_setup.h"

#include <torch/version.h>

#include <cmath>
#include <map>
#include <set>

namespace capaboost {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Names of parameters owned directly by LayerNorm modules. Matching on the module type rather than on
// "LayerNorm" in the name keeps models with other naming (lm_head.layer_norm, a user's variant) right.
std::set<std::string> layer_norm_parameter_names(torch::nn::Module& model) {
  std::set<std::string> names;
  for (const auto& item : model.named_modules()) {
    if (dynamic_cast<torch::nn::LayerNormImpl*>(item.value().get()) == nullptr) continue;
    for (const auto& parameter : item.value()->named_parameters(/*recurse=*/false)) {
      names.insert(item.key().empty() ? parameter.key() : item.key() + "." + parameter.key());
    }
  }
  return names;
}

// The key of a parameter's state in Optimizer::state(): a string of its TensorImpl's address in LibTorch
// 1.13, the address itself from 2.x on.
#if TORCH_VERSION_MAJOR >= 2
void* state_key(const torch::Tensor& parameter) { return parameter.unsafeGetTensorImpl(); }
#else
std::string state_key(const torch::Tensor& parameter) { return c10::guts::to_string(parameter.unsafeGetTensorImpl()); }
#endif

// torch::optim::AdamW whose step updates the parameters of a model on a GPU with ATen's multi-tensor
// (_foreach_) kernels: about ten launches per parameter group instead of about eight per tensor. A LoRA
// step at RoBERTa-base's shape in bf16 on an H200 is bound by the host launching ops (its profile: ~9k op
// calls; the optimizer's per-tensor loop was ~450 of them), so this is PyTorch's own choice there
// (AdamW's foreach default on CUDA). The arithmetic is AdamW's, op for op, on the same state
// (AdamWParamState), so state dicts are unchanged. CPU parameters, AMSGrad, and groups whose tensors
// are at different step counts take AdamW's per-tensor loop.
class MultiTensorAdamW final : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;

  torch::Tensor step(LossClosure closure = nullptr) override {
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

 private:
  // Every tensor with a gradient on a GPU, no AMSGrad, and one step count per group (the fresh ones at 0).
  bool multi_tensor_applies() {
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
};

}  // namespace

DecayGroups decay_groups(torch::nn::Module& model) {
  const std::set<std::string> layer_norm = layer_norm_parameter_names(model);
  DecayGroups groups;
  for (const auto& item : model.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    if (ends_with(item.key(), "bias") || layer_norm.count(item.key()) > 0) {
      groups.no_decay_names.push_back(item.key());
      groups.no_decay.push_back(item.value());
    } else {
      groups.decay_names.push_back(item.key());
      groups.decay.push_back(item.value());
    }
  }
  return groups;
}

std::unique_ptr<torch::optim::AdamW> make_adamw(torch::nn::Module& model, const AdamWSettings& settings) {
  DecayGroups groups = decay_groups(model);
  TORCH_CHECK(!groups.decay.empty() || !groups.no_decay.empty(),
              "make_adamw: the model has no trainable parameters; attach a tuner or choose which parameters "
              "train (train/trainable_selection.h) before building the optimizer");
  const auto options = [&](double weight_decay) {
    return torch::optim::AdamWOptions(settings.lr())
        .betas({settings.beta1(), settings.beta2()})
        .eps(settings.eps())
        .weight_decay(weight_decay);
  };
  // One group per (decay, learning rate): Hugging Face's two, split again where lr_of differs.
  std::vector<torch::optim::OptimizerParamGroup> param_groups;
  const auto add_groups = [&](const std::vector<std::string>& names, const std::vector<torch::Tensor>& tensors,
                              double weight_decay) {
    std::map<double, std::vector<torch::Tensor>> by_lr;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const std::optional<double> own = settings.lr_of() ? settings.lr_of()(names[i]) : std::nullopt;
      by_lr[own.value_or(settings.lr())].push_back(tensors[i]);
    }
    for (auto& [lr, group] : by_lr) {
      param_groups.emplace_back(std::move(group), std::make_unique<torch::optim::AdamWOptions>(options(weight_decay).lr(lr)));
    }
  };
  add_groups(groups.decay_names, groups.decay, settings.weight_decay());
  add_groups(groups.no_decay_names, groups.no_decay, 0.0);
  return std::make_unique<MultiTensorAdamW>(param_groups, options(settings.weight_decay()));
}

void set_learning_rate(torch::optim::AdamW& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  }
}

std::vector<double> group_learning_rates(torch::optim::AdamW& optimizer) {
  std::vector<double> rates;
  for (auto& group : optimizer.param_groups()) rates.push_back(static_cast<torch::optim::AdamWOptions&>(group.options()).lr());
  return rates;
}

void scale_learning_rates(torch::optim::AdamW& optimizer, const std::vector<double>& base, double peak, double lr) {
  auto& groups = optimizer.param_groups();
  TORCH_CHECK(groups.size() == base.size(), "scale_learning_rates: ", base.size(), " base rates for ", groups.size(),
              " parameter groups");
  TORCH_CHECK(peak > 0, "scale_learning_rates: the peak learning rate must be positive, got ", peak);
  for (size_t i = 0; i < groups.size(); ++i) {
    static_cast<torch::optim::AdamWOptions&>(groups[i].options()).lr(base[i] == peak ? lr : base[i] * (lr / peak));
  }
}

}  // namespace capaboost
