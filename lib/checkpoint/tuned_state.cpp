#include "checkpoint/tuned_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/state_dict.h"
#include "sites/site_registry.h"

namespace capaboost {

std::map<std::string, torch::Tensor> tuned_state(torch::nn::Module& model, const std::vector<std::string>& head_prefixes) {
  std::vector<std::string> names = tuner_tensor_names(model);
  for (const auto& prefix : head_prefixes) {
    const auto head = names_under(model, prefix);
    names.insert(names.end(), head.begin(), head.end());
  }
  const std::map<std::string, torch::Tensor> tensors = state_dict(model);
  std::map<std::string, torch::Tensor> state;
  // A copy on the CPU, whatever device the model trains on: the state outlives later steps and is saved.
  for (const auto& name : names) {
    state.emplace(name, tensors.at(name).detach().to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true));
  }
  return state;
}

void load_tuned_state(torch::nn::Module& model, const SafetensorsFile& file) {
  // The file holds no backbone tensor, so everything may be missing except the tuners' own: a state saved
  // by another method leaves them missing, one of another rank fails load_state_dict's shape check.
  std::vector<std::string> absent;
  for (const auto& name : tuner_tensor_names(model)) {
    if (!file.contains(name)) absent.push_back(name);
  }
  TORCH_CHECK(absent.empty(), file.path(),
              ": this tuned state does not fit the model (was it saved by a run of another method?); it lacks the "
              "tuner tensors ",
              fmt::format("{}", absent));
  load_state_dict(model, file, StateDictLoadOptions().allow_missing({".*"}));
}

}  // namespace capaboost
