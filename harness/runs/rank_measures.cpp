#include "runs/rank_measures.h"

#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <cstdio>

namespace capaboost::harness {
namespace {

// "site-768x768" → one TunableLinear(in 768, out 768) registered as "site".
std::shared_ptr<torch::nn::Module> single_site_model(const std::string& model) {
  int out = 0, in = 0;
  TORCH_CHECK(std::sscanf(model.c_str(), "site-%dx%d", &out, &in) == 2 && out > 0 && in > 0,
              "the rank measure needs model 'site-<out>x<in>' (e.g. site-768x768), got '", model, "'");
  auto module = std::make_shared<torch::nn::Module>();
  module->register_module("site", TunableLinear(in, out));
  return module;
}

MeasureResult measure_rank(const nlohmann::json& parameters, const RunContext&) {
  torch::manual_seed(parameters.value("seed", 0));
  auto model = single_site_model(parameters.value("model", std::string("site-768x768")));
  auto run_parameters = parameters;
  if (!run_parameters.contains("targets")) run_parameters["targets"] = {"site"};
  find_method(parameters.at("method").get<std::string>()).attach(*model, run_parameters);
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, site] : find_sites(*model)) {
      if (site->tuner()) {
        for (auto& p : site->tuner()->parameters()) p.normal_();
      }
    }
  }
  MeasureResult result;
  const auto ranks = site_ranks(*model);
  TORCH_CHECK(!ranks.empty(), "method '", parameters.at("method").get<std::string>(),
              "' is not a linear weight update: its rank cannot be measured");
  double sum = 0;
  int64_t minimum = INT64_MAX;
  for (const auto& [site, rank] : ranks) {
    sum += rank.rank;
    minimum = std::min(minimum, rank.rank);
    const auto values = rank.singular_values.narrow(0, 0, std::min<int64_t>(rank.singular_values.numel(), 512));
    result.details["sites"][site] = {{"rank", rank.rank},
                                     {"tolerance", rank.tolerance},
                                     {"singular_values", std::vector<double>(values.data_ptr<double>(),
                                                                             values.data_ptr<double>() + values.numel())}};
  }
  const auto params = count_parameters(*model);
  result.metrics = {{"rank", sum / ranks.size()},
                    {"rank_min", minimum},
                    {"params_dense", params.tuner_dense},
                    {"params_effective", params.tuner_effective}};
  return result;
}

MeasureResult measure_theorem1(const nlohmann::json& parameters, const RunContext&) {
  torch::manual_seed(parameters.value("seed", 0));
  const int64_t n = parameters.value("dim", 64), r = parameters.value("rank", 8), trials = parameters.value("trials", 100);
  auto low_rank = [&] {
    return torch::mm(torch::randn({n, r}, torch::kFloat64), torch::randn({r, n}, torch::kFloat64));
  };
  int64_t minimum = INT64_MAX, maximum = 0, additive = 0;
  double sum = 0;
  for (int64_t t = 0; t < trials; ++t) {
    const int64_t rank = numerical_rank(low_rank() + low_rank()).rank;
    minimum = std::min(minimum, rank);
    maximum = std::max(maximum, rank);
    sum += rank;
    additive += rank == std::min(2 * r, n);
  }
  MeasureResult result;
  result.metrics = {{"rank_mean", sum / trials},
                    {"rank_min", minimum},
                    {"rank_max", maximum},
                    {"additive_fraction", static_cast<double>(additive) / trials}};
  return result;
}

}  // namespace

std::vector<MeasureSpec> builtin_rank_measures() {
  return {{"rank", "rank of each site's weight update with random nonzero tuner factors", measure_rank},
          {"theorem1", "Monte Carlo check of Theorem 1: rank(X + Y) for random rank-r X, Y", measure_theorem1}};
}

}  // namespace capaboost::harness
