// The `lora` method: LoRA (peft/lora.h) on the target sites, CapaBoost-LoRA when branches > 1.

#include <fmt/format.h>

#include "capaboost/capaboost_parameters.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList lora_parameters() {
  const LoraOptions defaults;
  ParameterList parameters{
      ParameterDef::integer("rank", "LoRA rank r").defaults_to(defaults.rank()).at_least(1).at_most(4096),
      // A rank sweep at fixed α/r (the paper's rank ablation uses 1.5) names the ratio instead of α.
      ParameterDef::number("alpha_over_rank", "LoRA alpha as a multiple of r (sets alpha)")
          .optional()
          .above(0)
          .checked_by([](const nlohmann::json&, const nlohmann::json& given) -> std::string {
            return given.contains("alpha") ? "set 'alpha' or 'alpha_over_rank', not both" : "";
          }),
      ParameterDef::number("alpha", "LoRA alpha (scale alpha/r)")
          .derived(fmt::format("alpha_over_rank × rank when alpha_over_rank is set, else {:g}", defaults.alpha()),
                   [alpha = defaults.alpha()](const nlohmann::json& resolved) {
                     if (!resolved.contains("alpha_over_rank")) return nlohmann::json(alpha);
                     return nlohmann::json(resolved.at("alpha_over_rank").get<double>() *
                                           resolved.at("rank").get<double>());
                   })
          .above(0),
      ParameterDef::number("lora_dropout", "dropout on the LoRA input").defaults_to(defaults.dropout()).at_least(0).at_most(0.99),
      ParameterDef::text("lora_init", "LoRA A initialisation (B starts at zero)")
          .defaults_to(to_string(defaults.init()))
          .one_of(lora_init_names),
  };
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

[[maybe_unused]] const bool registered = register_method(
    {"lora", "LoRA (Hu et al., 2022) on the target sites; CapaBoost-LoRA with branches > 1", lora_parameters(),
     attach_lora});

}  // namespace
}  // namespace capaboost
