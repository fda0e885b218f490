#include "train/trainable_selection.h"

#include "sites/site_registry.h"

namespace capaboost {

int64_t select_trainable_parameters(torch::nn::Module& model, const BackboneParameterRule& trains_backbone_parameter,
                                    const std::vector<std::string>& head_prefixes) {
  freeze_backbone(model, head_prefixes);  // tuners and head train, nothing else
  if (trains_backbone_parameter) {
    for (auto& item : model.named_parameters()) {
      if (trains_backbone_parameter(item.key())) item.value().set_requires_grad(true);
    }
  }
  int64_t count = 0;
  for (const auto& parameter : model.parameters()) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  TORCH_CHECK(count > 0, "select_trainable_parameters: nothing trains; attach a tuner, choose a method that trains "
              "backbone parameters, or check the head prefixes");
  return count;
}

}  // namespace capaboost
