// The `rank` measure: the rank of a PEFT method's weight update on one linear site with random
// nonzero factors — the rank the parameterisation reaches (paper Table 1's pattern), which a trained
// update attains almost surely. Builds the model named by `model` ("site-<out>x<in>": one linear site
// named "site"), attaches `method`, draws every tuner factor from N(0, 1) (at initialisation LoRA's
// B = 0) and measures each site's ΔW rank and the parameter counts.
// Metrics: rank (mean over sites), rank_min, effective_rank, params_vs_lora_r8, params_dense,
// params_effective.
// Details: per site the rank, tolerance, effective rank and leading singular values.

#include <fmt/format.h>
#include <torch/torch.h>

#include <cstdio>

#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "measures/measure_registry.h"
#include "measures/plugin_parameters.h"
#include "measures/rank_metrics.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

namespace capaboost::harness {
namespace {

std::optional<std::pair<int, int>> site_shape(const std::string& model) {
  int out = 0, in = 0;
  char tail = 0;
  if (std::sscanf(model.c_str(), "site-%dx%d%c", &out, &in, &tail) != 2 || out <= 0 || in <= 0) return std::nullopt;
  return std::make_pair(out, in);
}

// "site-768x768" → one TunableLinear(in 768, out 768) registered as "site".
std::shared_ptr<torch::nn::Module> single_site_model(const std::string& model) {
  const auto shape = site_shape(model);
  TORCH_CHECK(shape, "the rank measure needs model 'site-<out>x<in>' (e.g. site-768x768), got '", model, "'");
  auto module = std::make_shared<torch::nn::Module>();
  module->register_module("site", TunableLinear(shape->second, shape->first));
  return module;
}

MeasureResult measure_rank(const Parameters& config, const RunContext&) {
  torch::manual_seed(config.get<int64_t>("seed"));
  auto model = single_site_model(config.get<std::string>("model"));
  const MethodSpec& method = find_method(config.get<std::string>("method"));
  method.attach(*model, config);
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, site] : find_sites(*model)) {
      if (site->tuner()) {
        for (auto& p : site->tuner()->parameters()) p.normal_();
      }
    }
  }
  const SiteRanks ranks = site_ranks(*model);
  TORCH_CHECK(!ranks.empty(), "method '", method.name, "' is not a linear weight update: its rank cannot be measured");
  const auto params = count_parameters(*model);
  MeasureResult result;
  record_rank_metrics(ranks, params.tuner_effective, result);
  result.metrics["params_dense"] = params.tuner_dense;
  result.metrics["params_effective"] = params.tuner_effective;
  result.details["sites"] = ranks.to_json();
  return result;
}

ParameterList rank_parameters() {
  return {
      ParameterDef::text("model", "'site-<out>x<in>': one linear site of that shape, named 'site'")
          .defaults_to("site-768x768")
          .checked_by([](const nlohmann::json& value, const nlohmann::json&) -> std::string {
            return site_shape(value.get<std::string>()) ? ""
                                                        : "the rank measure needs model 'site-<out>x<in>' (e.g. "
                                                          "site-768x768), got '" + value.get<std::string>() + "'";
          }),
      method_parameter(),
  };
}

[[maybe_unused]] const bool registered = register_measure(
    {"rank", "rank of each site's weight update with random nonzero tuner factors", rank_parameters(), measure_rank});

}  // namespace
}  // namespace capaboost::harness
