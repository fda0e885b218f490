#pragma once
// What a run computes, by name (`measure:` in a spec), as plugins: each measure declares its
// parameters (params/parameter.h) and registers itself from its own file (util/registry.h). Every
// measure also takes the run seed, declared once here.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "params/parameter.h"
#include "params/parameters.h"

namespace capaboost::harness {

/// Where a run finds its inputs and reports progress.
struct RunContext {
  std::string data_root;     ///< resolved GLUE/SQuAD data root
  bool interactive = false;  ///< a terminal is attached (progress bars)
  /// Where a run that trains a model keeps its tuned state (RecordStore::tuned_state_path); empty: keep none.
  std::string tuned_state_path;
  /// Where a training run writes its curves (RecordStore::scalars_path, train/training_scalars.h); empty: none.
  std::string scalars_path;
  /// Where models train (runtime/device.h); the record's provenance names it. Not part of the run key:
  /// like the thread count, it changes rounding and random streams, not the experiment.
  torch::Device device = torch::kCPU;
};

/// A run's outcome, before provenance is added. `metrics` holds the scalars that reports show;
/// `details` anything else worth keeping (per-site ranks and spectra, per-epoch metrics, …).
struct MeasureResult {
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json details = nlohmann::json::object();
};

/// A record metric a measure writes, declared as parameters are: report specs that name a metric no
/// measure of theirs writes are refused when planned, naming the field and the close names. A name
/// ending in '*' declares a family ("test_*": each task metric on the test split).
struct MetricDef {
  std::string name;
  std::string description;
};
using MetricList = std::vector<MetricDef>;

struct MeasureSpec {
  std::string name;
  std::string description;
  /// The measure's parameters besides `seed`; definitions without an owner are owned by "measure <name>".
  ParameterList parameters;
  /// Every metric its runs may record (some only for some methods: say which in the description).
  MetricList metrics;
  /// Runs once with a configuration resolved against run_parameters(*this).
  std::function<MeasureResult(const Parameters& config, const RunContext& context)> run;
  /// What a model that learned nothing scores, per record metric a run of `config` writes, on the run's
  /// test split: {"paper_score": {"level": 51.3, "standard_error": 2.4}, …} (report/learning_check.h).
  /// nullptr, or an object without the metric: no chance level (no row is called "did not learn").
  std::function<nlohmann::json(const Parameters& config, const RunContext& context)> chance_levels = nullptr;
};

bool register_measure(MeasureSpec measure);
const MeasureSpec& find_measure(const std::string& name);
std::vector<std::string> measure_names();

/// Whether `measure` declares `metric` (by name, or through a family "prefix*").
bool declares_metric(const MeasureSpec& measure, const std::string& metric);

/// The run seed (`seeds:` in a spec): weights of new modules, data order, dropout, random factors.
ParameterDef seed_parameter();

/// What a run of `measure` resolves against: `seed`, then the measure's parameters (and, through
/// their values, the method's and the task's).
ParameterList run_parameters(const MeasureSpec& measure);

}  // namespace capaboost::harness
