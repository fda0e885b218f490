#include "commands/sweep_options.h"

#include "backbones/backbone_registry.h"
#include "plan/data_fingerprint.h"
#include "plan/expansion.h"
#include "plan/plan.h"

namespace capaboost::harness {

void add_sweep_options(CLI::App* sub, SweepOptions& options, bool spec_required) {
  auto* spec = sub->add_option("spec", options.spec_path, "experiment spec (experiments/*.yaml)");
  if (spec_required) spec->required()->check(CLI::ExistingFile);
  sub->add_option("--profile", options.profile, "paper | cpu (the real pre-trained encoder, minilm) | mini (the offline encoders) | smoke (default: mini)")
      ->check(CLI::IsMember(profile_names()));
  sub->add_option("--results", options.results_dir, "results folder (run records and index)");
  sub->add_option("--data-root", options.data_root, "data root (default: $CAPABOOST_DATA_DIR or ../shared/data)");
}

Sweep load_sweep(const SweepOptions& options) {
  Sweep sweep;
  sweep.spec = load_checked_spec(options.spec_path);
  const std::string root = resolve_data_root(options.data_root);
  sweep.runs = plan_runs(
      sweep.spec, options.profile, [&](const nlohmann::json& config) { return data_fingerprint(config, root); },
      [](const nlohmann::json& config) {
        return config.contains("model") ? backbone_fingerprint(config.at("model").get<std::string>()) : std::string();
      });
  sweep.axes = axis_names(sweep.spec);
  return sweep;
}

}  // namespace capaboost::harness
