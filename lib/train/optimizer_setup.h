#pragma once
// AdamW as the paper's runs set it up (Hugging Face Trainer's create_optimizer): the trainable
// parameters in two groups, weight decay on weight matrices and none on biases and LayerNorm
// parameters; and the per-step learning-rate update.
//
//   auto optimizer = make_adamw(*model, AdamWSettings().lr(5e-4).weight_decay(0.1));
//   set_learning_rate(*optimizer, schedule.lr(step));

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capaboost {

struct AdamWSettings {
  TORCH_ARG(double, lr) = 1e-3;
  /// Decoupled weight decay on the decay group (matrices and embeddings).
  TORCH_ARG(double, weight_decay) = 0.0;
  TORCH_ARG(double, beta1) = 0.9;
  TORCH_ARG(double, beta2) = 0.999;
  /// Hugging Face's adam_epsilon default.
  TORCH_ARG(double, eps) = 1e-8;
  /// A learning rate of its own for some parameters (by name); null or nullopt: `lr`.
  TORCH_ARG(std::function<std::optional<double>(const std::string&)>, lr_of) = nullptr;
};

/// The trainable parameters of `model` split as Hugging Face Trainer splits them.
struct DecayGroups {
  std::vector<std::string> decay_names;     ///< get weight decay
  std::vector<std::string> no_decay_names;  ///< biases and LayerNorm parameters: no weight decay
  std::vector<torch::Tensor> decay;
  std::vector<torch::Tensor> no_decay;
};

/// Splits the parameters with requires_grad: a parameter is exempt from decay when its name ends in
/// "bias" or it belongs to a torch::nn::LayerNorm.
DecayGroups decay_groups(torch::nn::Module& model);

/// AdamW over decay_groups(model), each further split by the learning rates `settings.lr_of` gives.
/// Fails when nothing is trainable (a frozen model would silently train nothing).
std::unique_ptr<torch::optim::AdamW> make_adamw(torch::nn::Module& model, const AdamWSettings& settings);

/// Sets every parameter group's learning rate (the scheduler step).
void set_learning_rate(torch::optim::AdamW& optimizer, double lr);

/// Every group's initial learning rate, so a schedule can scale groups of different rates together.
std::vector<double> group_learning_rates(torch::optim::AdamW& optimizer);

/// The scheduler step for groups of different rates: the schedule moved the run's rate from `peak` to
/// `lr`, so group i gets base[i] · lr / peak (exactly `lr` where base[i] is the run's own rate).
void scale_learning_rates(torch::optim::AdamW& optimizer, const std::vector<double>& base, double peak, double lr);

}  // namespace capaboost
