#pragma once
// What a run computes, by name (`measure:` in a spec).

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// Where a run finds its inputs and reports progress.
struct RunContext {
  std::string data_root;  ///< resolved GLUE/SQuAD data root
  bool interactive = false;  ///< a terminal is attached (progress bars)
};

/// A run's outcome, before provenance is added. `metrics` holds the scalars that reports show;
/// `details` anything else worth keeping (per-site ranks and spectra, per-epoch metrics, …).
struct MeasureResult {
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json details = nlohmann::json::object();
};

struct MeasureSpec {
  std::string name;
  std::string description;
  std::function<MeasureResult(const nlohmann::json& parameters, const RunContext& context)> run;
};

void register_measure(MeasureSpec measure);
const MeasureSpec& find_measure(const std::string& name);
std::vector<std::string> measure_names();

}  // namespace capaboost::harness
