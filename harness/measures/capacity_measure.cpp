// The `capacity` measure: how much of a target weight update ΔW* a parameterisation can express per
// parameter (issue: "capacity for free, measured directly"). Builds the one-site model `model`
// ("site-<out>x<in>"), draws the target from the run seed (`target`: a spectrum of
// measures/weight_update_fit.h) or reads a real one ("updates:NAME:SITE_SUFFIX": one site's ΔW of a
// fine-tuning run that saved its updates, measures/weight_updates_file.h; its shape replaces the
// model's; "outputs:NAME:SITE_SUFFIX" measures every error as the output error ‖(ΔW − ΔW*)x‖ over the
// site's recorded inputs x instead), scales it to ‖ΔW*‖_F = √out, attaches `method` and fits its factors to ΔW* with Adam
// (`restarts` fresh initialisations, `fit_steps` steps each), or, with `solver: svd`, takes the
// truncated SVD at the method's rank (plain LoRA only): the Eckart–Young optimum that bounds every
// rank-r fit.
// Metrics: residual (relative, best restart), residual_mean (over restarts), explained (1 − residual²),
// svd_floor (the Eckart–Young residual at the run's budget: rank ⌊params_effective / (out + in)⌋),
// budget_gap (residual − svd_floor: below 0 the fit beats every LoRA of at most its budget, which
// reaches the floor), lora_equivalent_params (what the truncated SVD, and so LoRA, needs to reach the
// same residual: k·(out + in) at the fractional rank k where the floor meets it), capacity_per_parameter
// (lora_equivalent_params / params_effective: above 1, more of the target per parameter than LoRA),
// svd_floor_at_rank (at the fit's own rank: no matrix of that rank does better), rank (of the best
// fit), params_dense, params_effective, converged (share of restarts whose loss settled), fit_seconds.
// Details: every restart's residual, train-mode residual and loss trace; the target's leading
// singular values.

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "measures/weight_update_fit.h"
#include "measures/measure_registry.h"
#include "measures/plugin_parameters.h"
#include "measures/single_site_model.h"
#include "measures/weight_updates_file.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "util/setup_error.h"
#include "util/sha256.h"

namespace capaboost::harness {
namespace {

// The tuner of the one site `model` has after `method` attached to it.
SiteTunerImpl& site_tuner(torch::nn::Module& model, const std::string& method) {
  const auto sites = find_sites(model);
  TORCH_CHECK(sites.size() == 1 && sites.front().second->tuner(), "the capacity measure: method '", method,
              "' attached no tuner to the site (give it `targets: [site]`)");
  return *sites.front().second->tuner();
}

// A real target: "updates:NAME:SITE_SUFFIX" (the weights' norm) or "outputs:NAME:SITE_SUFFIX" (the
// output error on the site's recorded inputs).
struct RealTarget {
  std::string name, site_suffix;
  bool on_outputs = false;
};

std::optional<RealTarget> real_target(const std::string& target) {
  for (const std::string prefix : {"updates:", "outputs:"}) {
    if (target.rfind(prefix, 0) != 0) continue;
    const auto colon = target.find(':', prefix.size());
    if (colon == std::string::npos || colon == prefix.size() || colon + 1 == target.size()) return std::nullopt;
    return RealTarget{target.substr(prefix.size(), colon - prefix.size()), target.substr(colon + 1), prefix == "outputs:"};
  }
  return std::nullopt;
}

// The SHA-256 of an updates file (~120 MB for minilm), computed once per process and file version: a
// worker fits many runs to the sites of one file.
const std::string& updates_digest(const std::string& path) {
  static std::map<std::string, std::pair<std::filesystem::file_time_type, std::string>> digests;
  const auto written = std::filesystem::last_write_time(path);
  auto& entry = digests[path];
  if (entry.second.empty() || entry.first != written) entry = {written, sha256_file_hex(path)};
  return entry.second;
}

// What a run fits: ΔW* (out, in), scaled to ‖ΔW*‖_F = √out; the weighting M (in, in) of an output-error
// target (undefined otherwise); and what it is, for the record's details.
struct Target {
  torch::Tensor delta, weighting;
  nlohmann::json source;
};

Target load_target(const Parameters& config, int64_t seed) {
  const std::string target = config.get<std::string>("target");
  if (const auto real = real_target(target)) {
    const SiteUpdate update = load_site_update(real->name, real->site_suffix);
    const double norm = update.delta.to(torch::kFloat64).norm().item<double>();
    TORCH_CHECK(norm > 0, update.path, ": the update of site '", update.site, "' is zero (a frozen weight?)");
    nlohmann::json source = {{"file", update.path}, {"sha256", updates_digest(update.path)}, {"site", update.site},
                             {"frobenius_norm", norm}, {"error", real->on_outputs ? "outputs" : "weights"}};
    if (const auto it = update.metadata.find("config"); it != update.metadata.end()) {
      source["finetune_config"] = nlohmann::json::parse(it->second);
    }
    torch::Tensor weighting;
    if (real->on_outputs) {
      if (!update.inputs.defined()) {
        throw SetupError(fmt::format("{}: no recorded inputs of site '{}' (saved before inputs were kept): make "
                                     "them again with `capaboost run experiments/capacity_targets.yaml --force`",
                                     update.path, update.site));
      }
      weighting = input_weighting(update.inputs);
      source["input_rows"] = update.inputs.size(0);
    }
    return {update.delta * (std::sqrt(static_cast<double>(update.delta.size(0))) / norm), weighting, source};
  }
  const auto [out, in] = *site_shape(config.get<std::string>("model"));
  return {synthetic_update(SyntheticUpdateOptions(out, in, parse_spectrum(target))
                               .rank(config.get<int64_t>("target_rank"))
                               .exponent(config.get<double>("target_exponent")),
                           static_cast<uint64_t>(seed)),
          torch::Tensor(),
          {{"spectrum", target}}};
}

MeasureResult measure_capacity(const Parameters& config, const RunContext&) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t seed = config.get<int64_t>("seed");
  const Target loaded = load_target(config, seed);
  const torch::Tensor& target = loaded.delta;  // (out, in)
  const int64_t out = target.size(0), in = target.size(1);
  // A real update brings its own shape; a synthetic one takes the model's.
  const std::string model_name = fmt::format("site-{}x{}", out, in);
  // Errors are measured on ΔW* M: M = I (the weights) or the inputs' weighting (the outputs), and so is
  // the Eckart–Young floor: the best rank-k ΔW projects ΔW* onto the leading left singular vectors of ΔW* M.
  const auto weighted = loaded.weighting.defined()
                            ? torch::mm(target.to(torch::kFloat64), loaded.weighting.to(torch::kFloat64))
                            : target.to(torch::kFloat64);  // (out, in)
  const auto sigma = torch::linalg_svdvals(weighted);  // (min(out, in)) descending
  const MethodSpec& method = find_method(config.get<std::string>("method"));
  const std::string solver = config.get<std::string>("solver");
  const int64_t restarts = solver == "svd" ? 1 : config.get<int64_t>("restarts");

  MeasureResult result;
  nlohmann::json fits = nlohmann::json::array();
  torch::Tensor best_delta;
  double best = INFINITY, sum = 0;
  int64_t converged = 0;
  ParameterReport params;
  for (int64_t restart = 0; restart < restarts; ++restart) {
    // Restarts differ in the tuner's initialisation only: the target and the masks stay.
    torch::manual_seed(seed * 1000 + restart);
    auto model = single_site_model(model_name);
    method.attach(*model, config);
    SiteTunerImpl& tuner = site_tuner(*model, method.name);
    params = count_parameters(*model);
    WeightUpdateFit fit;
    if (solver == "svd") {
      TORCH_CHECK(method.name == "lora" && config.get<int64_t>("branches") == 1 && config.get<std::string>("mask") == "none",
                  "the capacity measure: solver svd is the Eckart–Young optimum of plain LoRA; give it method lora "
                  "with branches 1 and mask none (got method ", method.name, ")");
      const int64_t rank = config.get<int64_t>("rank");
      auto [u, s, vh] = torch::linalg_svd(weighted, /*full_matrices=*/false);
      const auto leading = u.narrow(1, 0, std::min<int64_t>(rank, s.size(0)));  // (out, k)
      fit.delta = torch::mm(leading, torch::mm(leading.t(), target.to(torch::kFloat64)));  // (out, in)
      const auto error = loaded.weighting.defined()
                             ? torch::mm(fit.delta, loaded.weighting.to(torch::kFloat64)) - weighted
                             : fit.delta - weighted;
      fit.residual = fit.train_residual = error.norm().item<double>() / weighted.norm().item<double>();
      fit.converged = true;
    } else {
      fit = fit_weight_update(tuner, target,
                              WeightUpdateFitOptions()
                                  .steps(config.get<int64_t>("fit_steps"))
                                  .lr(config.get<double>("fit_lr"))
                                  .weighting(loaded.weighting));
    }
    fits.push_back({{"residual", fit.residual}, {"train_residual", fit.train_residual}, {"converged", fit.converged},
                    {"trace", fit.trace}});
    sum += fit.residual;
    converged += fit.converged;
    if (fit.residual < best) {
      best = fit.residual;
      best_delta = fit.delta;
    }
  }
  // A rank-k truncated SVD stores k·(out + in) numbers (its factors U_k Σ_k and V_k).
  const int64_t budget_rank = params.tuner_effective / (out + in);
  const int64_t fit_rank = numerical_rank(best_delta).rank;
  const double lora_equivalent = truncation_rank_for(sigma, best) * static_cast<double>(out + in);
  result.metrics = {{"residual", best},
                    {"residual_mean", sum / static_cast<double>(restarts)},
                    {"explained", 1 - best * best},
                    {"svd_floor", truncation_residual(sigma, budget_rank)},
                    {"svd_floor_at_rank", truncation_residual(sigma, fit_rank)},
                    {"budget_gap", best - truncation_residual(sigma, budget_rank)},
                    {"lora_equivalent_params", lora_equivalent},
                    {"capacity_per_parameter", lora_equivalent / static_cast<double>(params.tuner_effective)},
                    {"rank", fit_rank},
                    {"params_dense", params.tuner_dense},
                    {"params_effective", params.tuner_effective},
                    {"converged", static_cast<double>(converged) / static_cast<double>(restarts)},
                    {"fit_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
  result.details["restarts"] = fits;
  result.details["target"] = loaded.source;
  const int64_t shown = std::min<int64_t>(64, sigma.size(0));
  result.details["target_singular_values"] =
      std::vector<double>(sigma.data_ptr<double>(), sigma.data_ptr<double>() + shown);
  return result;
}

ParameterList capacity_parameters() {
  return {
      single_site_model_parameter("capacity"),
      method_parameter(),
      ParameterDef::text("target",
                         "ΔW*: a synthetic spectrum (flat, power_law, low_rank; drawn from the run seed, shaped as "
                         "model), or one site of a saved fine-tuning update, fitted in the weights' norm "
                         "(updates:NAME:SITE_SUFFIX) or on the site's recorded inputs (outputs:NAME:SITE_SUFFIX)")
          .defaults_to("power_law")
          .checked_by([](const nlohmann::json& value, const nlohmann::json&) -> std::string {
            const auto target = value.get<std::string>();
            const auto names = spectrum_names();
            if (std::find(names.begin(), names.end(), target) != names.end() || real_target(target)) return "";
            return "target '" + target + "' is neither flat, power_law, low_rank, updates:NAME:SITE_SUFFIX nor "
                   "outputs:NAME:SITE_SUFFIX";
          }),
      ParameterDef::integer("target_rank", "nonzero singular values of a low_rank target").defaults_to(16).at_least(1).at_most(65536),
      ParameterDef::number("target_exponent", "decay exponent of a power_law target: σ_i = i^-exponent")
          .defaults_to(1.0)
          .at_least(0)
          .at_most(10),
      ParameterDef::text("solver", "adam: fit the method's factors; svd: the truncated SVD at the LoRA rank")
          .defaults_to("adam")
          .one_of([] { return std::vector<std::string>{"adam", "svd"}; }),
      ParameterDef::integer("restarts", "fresh initialisations per fit (the best is reported)").defaults_to(3).at_least(1).at_most(100),
      ParameterDef::integer("fit_steps", "Adam steps per fit").defaults_to(1000).at_least(1).at_most(1000000),
      ParameterDef::number("fit_lr", "Adam's peak learning rate (cosine decay to 0)").defaults_to(5e-3).above(0).at_most(10),
  };
}

MetricList capacity_metrics() {
  return {
      {"residual", "relative residual ‖ΔW − ΔW*‖ / ‖ΔW*‖ of the best restart"},
      {"residual_mean", "the relative residual, mean over the restarts"},
      {"explained", "1 − residual²: the fraction of the target's energy expressed"},
      {"svd_floor", "the Eckart–Young residual at the run's budget, rank ⌊params_effective / (out + in)⌋"},
      {"svd_floor_at_rank", "the truncated-SVD residual at the fit's own numerical rank"},
      {"budget_gap", "residual − svd_floor: below 0 the fit beats every LoRA of at most its budget"},
      {"lora_equivalent_params", "what the truncated SVD, and so LoRA, needs to reach the same residual"},
      {"capacity_per_parameter", "lora_equivalent_params over the parameterisation's effective parameters"},
      {"rank", "numerical rank of the fitted ΔW"},
      {"params_dense", "tuner parameters stored (masked entries counted)"},
      {"params_effective", "tuner parameters that train (masked entries not counted)"},
      {"converged", "share of restarts whose loss settled"},
      {"fit_seconds", "wall time of the fits"},
  };
}

[[maybe_unused]] const bool registered_capacity_measure = register_measure(
    {"capacity", "how much of a target weight update a parameterisation can express, against the SVD floor",
     capacity_parameters(), capacity_metrics(), measure_capacity});

}  // namespace
}  // namespace capaboost::harness
