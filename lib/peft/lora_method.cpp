// The `lora` method: LoRA (peft/lora.h) on the target sites, CapaBoost-LoRA when branches > 1.

#include "capaboost/capaboost_parameters.h"
#include "peft/lora.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList lora_parameters() {
  ParameterList parameters = lora_factor_parameters();
  for (auto& shared : {site_selection_parameters({"query", "value"}), capaboost_parameters()}) {
    parameters.insert(parameters.end(), shared.begin(), shared.end());
  }
  return parameters;
}

std::vector<std::string> attach_lora(torch::nn::Module& model, const Parameters& config) {
  const auto options = LoraOptions(config.get<int64_t>("rank"))
                           .alpha(config.get<double>("alpha"))
                           .dropout(config.get<double>("lora_dropout"))
                           .init(parse_lora_init(config.get<std::string>("lora_init")))
                           .capaboost(capaboost_options(config));
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<LoraImpl>(options, site, layer.options.in_features(), layer.options.out_features());
  });
}

[[maybe_unused]] const bool registered_lora_method = register_method(
    {"lora", "LoRA (Hu et al., 2022) on the target sites; CapaBoost-LoRA with branches > 1", lora_parameters(),
     attach_lora});

}  // namespace
}  // namespace capaboost
