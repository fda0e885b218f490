#include "peft/method_parameters.h"

#include <fmt/format.h>

#include "peft/adapter.h"
#include "peft/lora.h"
#include "peft/prefix_tuning.h"

namespace capaboost {

ParameterList lora_factor_parameters() {
  const LoraOptions defaults;
  return {
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
}

ParameterList adapter_shape_parameters() {
  const AdapterOptions defaults;
  return {
      ParameterDef::integer("bottleneck", "adapter bottleneck size").defaults_to(defaults.bottleneck()).at_least(1).at_most(65536),
      ParameterDef::text("activation", "adapter nonlinearity")
          .defaults_to(to_string(defaults.activation()))
          .one_of(adapter_activation_names),
  };
}

ParameterList prefix_shape_parameters() {
  const PrefixOptions defaults;
  return {
      ParameterDef::integer("prefix_length", "prefix positions l per attention site")
          .defaults_to(defaults.length())
          .at_least(1)
          .at_most(4096),
      ParameterDef::integer("prefix_mlp_hidden", "width of the reparameterisation MLP (0: plain prefixes)")
          .defaults_to(defaults.mlp_hidden())
          .at_least(0)
          .at_most(65536),
  };
}

}  // namespace capaboost
