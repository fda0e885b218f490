// The `adapter` method: a bottleneck adapter (peft/adapter.h), CapaBoost-PAdapter when branches > 1.
// `targets` / `target_regex` select linear sites, by default every layer's feed-forward output
// projection (Pfeiffer's layers; [output.dense] adds the attention outputs: Houlsby's). `placement` says
// where on each selected site the adapter reads and writes:
// - output (the default, which every run recorded before `placement` existed used): on the projection's
//   output, before the block's dropout, residual and LayerNorm: y' = y + A(y);
// - after_layer_norm: after the LayerNorm of the block the projection feeds (sites/residual_site.h),
//   out = LN(s + A(LN(s))) with s = h + x: Pfeiffer et al.'s and adapter-transformers' placement, the one
//   the paper names ("after FFN and LayerNorm modules", §2). Same parameters, same budget.

#include "capaboost/capaboost_parameters.h"
#include "peft/adapter.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

constexpr const char* kOnOutput = "output";
constexpr const char* kAfterLayerNorm = "after_layer_norm";

ParameterList adapter_parameters() {
  ParameterList parameters = adapter_shape_parameters();
  parameters.push_back(
      ParameterDef::text("placement",
                         "where the adapter acts on each target site: its output (output) or after the LayerNorm "
                         "of the residual block it feeds (after_layer_norm, Pfeiffer's)")
          .defaults_to(kOnOutput)
          .unkeyed_at_default()
          .one_of([] { return std::vector<std::string>{kOnOutput, kAfterLayerNorm}; }));
  for (auto& shared : {site_selection_parameters({}, R"((.*\.)?layer\.[0-9]+\.output\.dense)"), capaboost_parameters()}) {
    parameters.insert(parameters.end(), shared.begin(), shared.end());
  }
  return parameters;
}

std::vector<std::string> attach_adapter(torch::nn::Module& model, const Parameters& config) {
  const auto options = AdapterOptions(config.get<int64_t>("bottleneck"))
                           .activation(parse_adapter_activation(config.get<std::string>("activation")))
                           .capaboost(capaboost_options(config));
  if (config.get<std::string>("placement") == kAfterLayerNorm) {
    // The residual site adds the block's sum itself: the adapter returns only its correction.
    const auto correction_only = AdapterOptions(options).residual(false);
    return attach_residual_tuners(model, site_selector(config),
                                  [&](const std::string& site, const ResidualSiteImpl& residual) -> SiteTunerPtr {
                                    return std::make_shared<AdapterImpl>(correction_only, site, residual.features());
                                  });
  }
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<AdapterImpl>(options, site, layer.options.out_features());
  });
}

[[maybe_unused]] const bool registered_adapter_method = register_method(
    {"adapter", "bottleneck adapter on the target sites' outputs or after their blocks' LayerNorm (placement)",
     adapter_parameters(), attach_adapter});

}  // namespace
}  // namespace capaboost
