// The `adalora` method: AdaLoRA (peft/adalora.h) on the target sites with its budget allocator
// (peft/adalora_allocator.h) as training hooks. Defaults are the paper's RoBERTa-base setting
// (initial rank 48, average target rank 32, on query and value: "we only append incremental weights
// to self-attention layers in AdaLoRA as the other baselines do") and, for what the paper takes from
// AdaLoRA, its published GLUE script for CoLA: α 32, β₁ = β₂ = 0.85, orthogonality weight 0.1,
// reallocation every 10 steps, t_i = 800 and t_f = 3,500 of its 6,700 steps (25 epochs of 268),
// given here as fractions of the run's steps (0.12, 0.52).

#include "peft/adalora.h"
#include "peft/adalora_allocator.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList adalora_parameters() {
  const AdaLoraOptions defaults;
  const AdaLoraScheduleOptions schedule;
  ParameterList parameters{
      ParameterDef::integer("initial_rank", "rank every AdaLoRA site starts with").defaults_to(defaults.initial_rank()).at_least(1).at_most(4096),
      ParameterDef::integer("target_rank", "average rank per site at the end of the budget schedule")
          .defaults_to(defaults.target_rank())
          .at_least(1)
          .at_most(4096)
          .checked_by([](const nlohmann::json& value, const nlohmann::json& given) -> std::string {
            const int64_t initial = given.value("initial_rank", AdaLoraOptions().initial_rank());
            return value.get<int64_t>() > initial ? "target_rank must not exceed initial_rank (" + std::to_string(initial) + ")" : "";
          }),
      ParameterDef::number("alpha", "AdaLoRA alpha (scale alpha/initial_rank)").defaults_to(defaults.alpha()).above(0),
      ParameterDef::number("lora_dropout", "dropout on the AdaLoRA input").defaults_to(defaults.dropout()).at_least(0).at_most(0.99),
      ParameterDef::number("initial_warmup", "fraction of the steps at the initial budget (t_i / T)")
          .defaults_to(schedule.initial_warmup())
          .at_least(0)
          .at_most(0.99),
      ParameterDef::number("final_warmup", "fraction of the steps at the target budget (t_f / T)")
          .defaults_to(schedule.final_warmup())
          .at_least(0)
          .at_most(0.99)
          .checked_by([](const nlohmann::json& value, const nlohmann::json& given) -> std::string {
            const double initial = given.value("initial_warmup", AdaLoraScheduleOptions().initial_warmup());
            return value.get<double>() + initial >= 1.0 ? "initial_warmup + final_warmup must be below 1 (steps must remain for the budget to fall)" : "";
          }),
      ParameterDef::integer("mask_interval", "steps between budget reallocations (ΔT)").defaults_to(schedule.mask_interval()).at_least(1).at_most(1000000),
      ParameterDef::number("beta1", "smoothing of the importance").defaults_to(schedule.beta1()).at_least(0).at_most(0.999),
      ParameterDef::number("beta2", "smoothing of the uncertainty").defaults_to(schedule.beta2()).at_least(0).at_most(0.999),
      ParameterDef::number("orthogonality_weight", "weight of the orthogonality regulariser (gamma)")
          .defaults_to(schedule.orthogonality_weight())
          .at_least(0),
  };
  const auto sites = site_selection_parameters({"query", "value"});
  parameters.insert(parameters.end(), sites.begin(), sites.end());
  return parameters;
}

std::vector<std::string> attach_adalora(torch::nn::Module& model, const Parameters& config) {
  const auto options = AdaLoraOptions(config.get<int64_t>("initial_rank"))
                           .target_rank(config.get<int64_t>("target_rank"))
                           .alpha(config.get<double>("alpha"))
                           .dropout(config.get<double>("lora_dropout"));
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<AdaLoraImpl>(options, site, layer.options.in_features(), layer.options.out_features());
  });
}

TrainingHooksPtr adalora_allocator(torch::nn::Module& model, const Parameters& config) {
  std::vector<std::pair<std::string, std::shared_ptr<AdaLoraImpl>>> sites;
  for (const auto& [name, tuner] : find_tuners(model)) {
    if (auto site = std::dynamic_pointer_cast<AdaLoraImpl>(tuner)) sites.emplace_back(site->site(), site);
  }
  return std::make_shared<AdaLoraAllocator>(std::move(sites), AdaLoraScheduleOptions()
                                                                  .initial_warmup(config.get<double>("initial_warmup"))
                                                                  .final_warmup(config.get<double>("final_warmup"))
                                                                  .mask_interval(config.get<int64_t>("mask_interval"))
                                                                  .beta1(config.get<double>("beta1"))
                                                                  .beta2(config.get<double>("beta2"))
                                                                  .orthogonality_weight(config.get<double>("orthogonality_weight")));
}

[[maybe_unused]] const bool registered_adalora_method = [] {
  MethodSpec method{"adalora", "AdaLoRA (Zhang et al., 2023): SVD-form LoRA whose ranks an importance-driven budget reallocates",
                    adalora_parameters(), attach_adalora};
  method.training_hooks = adalora_allocator;
  return register_method(std::move(method));
}();

}  // namespace
}  // namespace capaboost
