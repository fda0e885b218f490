#include "peft/adapter_placement.h"

#include "sites/residual_site.h"
#include "sites/site_parameters.h"
#include "sites/site_registry.h"

namespace capaboost {
namespace {

constexpr const char* kOnOutput = "output";
constexpr const char* kAfterLayerNorm = "after_layer_norm";

}  // namespace

ParameterDef adapter_placement_parameter() {
  return ParameterDef::text("placement",
                            "where the adapter acts on each target site: its output (output) or after the LayerNorm "
                            "of the residual block it feeds (after_layer_norm, Pfeiffer's)")
      .defaults_to(kOnOutput)
      .unkeyed_at_default()
      .one_of([] { return std::vector<std::string>{kOnOutput, kAfterLayerNorm}; });
}

std::vector<std::string> attach_by_placement(torch::nn::Module& model, const Parameters& config,
                                             const PlacedTunerFactory& factory) {
  if (config.get<std::string>("placement") == kAfterLayerNorm) {
    return attach_residual_tuners(model, site_selector(config),
                                  [&](const std::string& site, const ResidualSiteImpl& residual) -> SiteTunerPtr {
                                    return factory(site, residual.features(), /*residual=*/false);
                                  });
  }
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return factory(site, layer.options.out_features(), /*residual=*/true);
  });
}

}  // namespace capaboost
