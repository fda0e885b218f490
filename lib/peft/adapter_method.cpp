// The `adapter` method: a bottleneck adapter (peft/adapter.h) on the target sites' outputs,
// CapaBoost-PAdapter when branches > 1. The default placement is Pfeiffer's: after every layer's
// feed-forward output projection; targets [output.dense] gives Houlsby's (after attention too).

#include "capaboost/capaboost_parameters.h"
#include "peft/adapter.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList adapter_parameters() {
  ParameterList parameters = adapter_shape_parameters();
  for (auto& shared : {site_selection_parameters({}, R"((.*\.)?layer\.[0-9]+\.output\.dense)"), capaboost_parameters()}) {
    parameters.insert(parameters.end(), shared.begin(), shared.end());
  }
  return parameters;
}

std::vector<std::string> attach_adapter(torch::nn::Module& model, const Parameters& config) {
  const auto options = AdapterOptions(config.get<int64_t>("bottleneck"))
                           .activation(parse_adapter_activation(config.get<std::string>("activation")))
                           .capaboost(capaboost_options(config));
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<AdapterImpl>(options, site, layer.options.out_features());
  });
}

[[maybe_unused]] const bool registered_adapter_method = register_method(
    {"adapter", "bottleneck adapter on the target sites' outputs (Pfeiffer placement by default)",
     adapter_parameters(), attach_adapter});

}  // namespace
}  // namespace capaboost
