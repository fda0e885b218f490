// The `rank` measure: the rank of a PEFT method's weight update on one linear site with random
// nonzero factors — the rank the parameterisation reaches (paper Table 1's pattern), which a trained
// update attains almost surely. Builds the model named by `model` ("site-<out>x<in>": one linear site
// named "site"), attaches `method`, draws every tuner factor from N(0, 1) (at initialisation LoRA's
// B = 0) and measures each site's ΔW rank and the parameter counts.
// Metrics: rank (mean over sites), rank_min, effective_rank, params_vs_lora_r8, params_dense,
// params_effective.
// Details: per site the rank, tolerance, effective rank and leading singular values.

#include <torch/torch.h>

#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "measures/measure_registry.h"
#include "measures/plugin_parameters.h"
#include "measures/rank_metrics.h"
#include "measures/single_site_model.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

namespace capaboost::harness {
namespace {

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
      single_site_model_parameter("rank"),
      method_parameter(),
  };
}

MetricList rank_measure_metrics() {
  MetricList metrics = rank_metrics();
  metrics.push_back({"params_dense", "tuner parameters stored (masked entries counted)"});
  metrics.push_back({"params_effective", "tuner parameters that train (masked entries not counted)"});
  return metrics;
}

[[maybe_unused]] const bool registered_rank_measure = register_measure({"rank",
                                                            "rank of each site's weight update with random nonzero tuner factors",
                                                            rank_parameters(), rank_measure_metrics(), measure_rank});

}  // namespace
}  // namespace capaboost::harness
