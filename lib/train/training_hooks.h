#pragma once
// What a PEFT method may add to the training loop beyond its tuners' forward: a regulariser on the
// loss (which may run the model again, as AdaMix's consistency term does), a step after each
// optimizer update, and learning rates of their own for some parameters. AdaLoRA needs both (orthogonality of P and Q; the
// importance-driven rank budget, which is global over every site and so lives outside any one tuner).
// Methods create their hooks when they attach (peft/method_registry.h); the trainer calls them.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "data/batch.h"
#include "models/task_model.h"

namespace capaboost {

class TrainingHooks {
 public:
  virtual ~TrainingHooks() = default;

  /// Added to the task loss before backward; an undefined tensor adds nothing. `outputs` are the
  /// model's outputs on `batch` (AdaMix compares them with a second, differently routed pass).
  virtual torch::Tensor regularization_loss(TaskModelImpl& model, const Batch& batch, const torch::Tensor& outputs) {
    (void)model;
    (void)batch;
    (void)outputs;
    return {};
  }

  /// Called after optimizer step `step` (1-based) of `total_steps`, gradients still in place.
  virtual void after_step(int64_t step, int64_t total_steps) {
    (void)step;
    (void)total_steps;
  }

  /// A learning rate of its own for the trainable parameter `name` (ProPETL's mask scores); nullopt:
  /// the run's. It follows the run's schedule (warm-up and decay) in proportion.
  virtual std::optional<double> learning_rate_of(const std::string& name) const {
    (void)name;
    return std::nullopt;
  }

  /// What the hooks measured during training, for the run record (e.g. AdaLoRA's final ranks).
  virtual nlohmann::json summary() const { return nlohmann::json::object(); }
};

using TrainingHooksPtr = std::shared_ptr<TrainingHooks>;

}  // namespace capaboost
