#include "commands/sweep_options.h"

#include "runs/backbones.h"
#include "runs/data_fingerprint.h"

namespace capaboost::harness {

void add_sweep_options(CLI::App* sub, SweepOptions& options, bool spec_required) {
  auto* spec = sub->add_option("spec", options.spec_path, "experiment spec (experiments/*.yaml)");
  if (spec_required) spec->required()->check(CLI::ExistingFile);
  sub->add_option("--profile", options.profile, "paper | mini | smoke (default: mini, the CPU profile)")
      ->check(CLI::IsMember(profile_names()));
  sub->add_option("--results", options.results_dir, "results folder (run records and index)");
  sub->add_option("--data-root", options.data_root, "data root (default: $CAPABOOST_DATA_DIR or ../shared/data)");
}

Sweep load_sweep(const SweepOptions& options) {
  Sweep sweep;
  sweep.spec = load_spec(options.spec_path);
  const std::string root = resolve_data_root(options.data_root);
  sweep.runs = expand_spec(sweep.spec, options.profile,
                           [&](const nlohmann::json& parameters) { return data_fingerprint(parameters, root); },
                           offline_backbone_fingerprint);
  sweep.axes = axis_names(sweep.spec);
  return sweep;
}

}  // namespace capaboost::harness
