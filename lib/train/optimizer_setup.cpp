#include "train/optimizer_setup.h"

#include <map>
#include <set>

#include "train/multi_tensor_adamw.h"

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
