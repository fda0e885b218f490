#include "data/batch.h"

namespace capaboost {

const torch::Tensor& Batch::input(const std::string& name) const {
  const auto it = inputs.find(name);
  if (it == inputs.end()) {
    std::string held;
    for (const auto& entry : inputs) held += (held.empty() ? "" : ", ") + entry.first;
    TORCH_CHECK(false, "the batch has no input '", name, "'; it holds: ", held.empty() ? "(nothing)" : held);
  }
  return it->second;
}

torch::Tensor Batch::optional_input(const std::string& name) const {
  const auto it = inputs.find(name);
  return it == inputs.end() ? torch::Tensor() : it->second;
}

}  // namespace capaboost
