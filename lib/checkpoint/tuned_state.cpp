#include "checkpoint/tuned_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "sites/site_registry.h"

namespace capaboost {

namespace {

bool starts_with_any(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The model's parameters and buffers by dotted name, as load_state_dict sees them.
std::map<std::string, torch::Tensor> all_tensors(torch::nn::Module& model) {
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : model.named_parameters()) tensors.emplace(item.key(), item.value());
  for (const auto& item : model.named_buffers()) tensors.emplace(item.key(), item.value());
  return tensors;
}

}  // namespace

std::map<std::string, torch::Tensor> tuned_state(torch::nn::Module& model, const std::vector<std::string>& head_prefixes) {
  const std::vector<std::string> tuner_names = tuner_tensor_names(model);
  const std::set<std::string> tuner_set(tuner_names.begin(), tuner_names.end());
  std::map<std::string, torch::Tensor> state;
  for (const auto& [name, tensor] : all_tensors(model)) {
    if (tuner_set.count(name) || starts_with_any(name, head_prefixes)) state.emplace(name, tensor.detach().clone());
  }
  return state;
}

void load_tuned_state(torch::nn::Module& model, const SafetensorsFile& file) {
  const std::map<std::string, torch::Tensor> tensors = all_tensors(model);
  std::vector<std::string> unknown;
  for (const auto& name : file.names()) {
    if (!tensors.count(name)) unknown.push_back(name);
  }
  std::vector<std::string> absent;
  for (const auto& name : tuner_tensor_names(model)) {
    if (!file.contains(name)) absent.push_back(name);
  }
  TORCH_CHECK(unknown.empty() && absent.empty(), file.path(),
              ": this tuned state does not fit the model (was it saved by a run of another method, rank or "
              "backbone?); the model lacks ",
              fmt::format("{}", unknown), " and the file lacks the tuner tensors ", fmt::format("{}", absent));
  torch::NoGradGuard no_grad;
  for (const auto& name : file.names()) {
    torch::Tensor target = tensors.at(name);
    const torch::Tensor source = file.tensor(name);
    TORCH_CHECK(source.sizes() == target.sizes(), file.path(), ": tensor '", name, "' has shape ", source.sizes(),
                " but the model's is ", target.sizes());
    target.copy_(source);
  }
}

}  // namespace capaboost
