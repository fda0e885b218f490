#include "train/trainable_selection.h"

#include "sites/site_registry.h"

namespace capaboost {

namespace {

bool starts_with_any(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool is_bias(const std::string& name) {
  return name == "bias" || (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0);
}

}  // namespace

int64_t select_trainable_parameters(torch::nn::Module& model, TrainedParameters trained,
                                    const std::vector<std::string>& head_prefixes) {
  switch (trained) {
    case TrainedParameters::kTunersAndHead:
      freeze_backbone(model, head_prefixes);
      break;
    case TrainedParameters::kAll:
      for (auto& parameter : model.parameters()) parameter.set_requires_grad(true);
      break;
    case TrainedParameters::kBiasesAndHead:
      // BitFit trains the biases of every layer (LayerNorm's included, as in its reference code).
      for (auto& item : model.named_parameters()) {
        item.value().set_requires_grad(is_bias(item.key()) || starts_with_any(item.key(), head_prefixes));
      }
      break;
  }
  int64_t count = 0;
  for (const auto& parameter : model.parameters()) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  TORCH_CHECK(count > 0, "select_trainable_parameters: nothing trains with '", to_string(trained),
              "'; attach a tuner or check the head prefixes");
  return count;
}

}  // namespace capaboost
