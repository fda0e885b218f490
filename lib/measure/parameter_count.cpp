#include "measure/parameter_count.h"

#include <set>

#include "sites/site_registry.h"

namespace capaboost {

ParameterReport count_parameters(torch::nn::Module& model, const std::vector<std::string>& head_prefixes) {
  ParameterReport report;
  // Tuner parameters are recognised by identity, not by name, so any naming scheme works.
  std::set<const void*> tuner_tensors;
  for (auto& [name, tuner] : find_tuners(model)) {
    const auto count = tuner->parameter_count();
    report.tuner_dense += count.dense;
    report.tuner_effective += count.effective;
    for (const auto& param : tuner->parameters()) tuner_tensors.insert(param.unsafeGetTensorImpl());
  }
  for (const auto& param : model.named_parameters()) {
    const auto& tensor = param.value();
    if (tensor.requires_grad()) report.trainable += tensor.numel();
    if (tuner_tensors.count(tensor.unsafeGetTensorImpl())) continue;
    bool is_head = false;
    for (const auto& prefix : head_prefixes) is_head |= param.key().rfind(prefix, 0) == 0;
    (is_head ? report.head : report.backbone) += tensor.numel();
    if (!is_head && tensor.requires_grad()) report.backbone_trained += tensor.numel();
  }
  return report;
}

}  // namespace capaboost
