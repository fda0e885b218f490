// The `adapter` method: a bottleneck adapter (peft/adapter.h), CapaBoost-PAdapter when branches > 1.
// `targets` / `target_regex` select linear sites, by default every layer's feed-forward output
// projection (Pfeiffer's layers; [output.dense] adds the attention outputs: Houlsby's). `placement` says
// where on each selected site the adapter reads and writes: on its output, or after its block's
// LayerNorm, Pfeiffer's (peft/adapter_placement.h).

#include "capaboost/capaboost_parameters.h"
#include "peft/adapter.h"
#include "peft/adapter_placement.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList adapter_parameters() {
  ParameterList parameters = adapter_shape_parameters();
  parameters.push_back(adapter_placement_parameter());
  for (auto& shared : {site_selection_parameters({}, R"((.*\.)?layer\.[0-9]+\.output\.dense)"), capaboost_parameters()}) {
    parameters.insert(parameters.end(), shared.begin(), shared.end());
  }
  return parameters;
}

std::vector<std::string> attach_adapter(torch::nn::Module& model, const Parameters& config) {
  const auto options = AdapterOptions(config.get<int64_t>("bottleneck"))
                           .activation(parse_adapter_activation(config.get<std::string>("activation")))
                           .capaboost(capaboost_options(config));
  return attach_by_placement(model, config, [&](const std::string& site, int64_t features, bool residual) -> SiteTunerPtr {
    return std::make_shared<AdapterImpl>(AdapterOptions(options).residual(residual), site, features);
  });
}

[[maybe_unused]] const bool registered_adapter_method = register_method(
    {"adapter", "bottleneck adapter on the target sites' outputs or after their blocks' LayerNorm (placement)",
     adapter_parameters(), attach_adapter});

}  // namespace
}  // namespace capaboost
