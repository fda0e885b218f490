#pragma once
// The run-level parameters an experiment spec may set, with their types and valid ranges.

#include "spec/diagnostics.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

enum class ParameterType { kInt, kNumber, kString, kBool, kStringList };

struct ParameterDef {
  std::string name;
  ParameterType type;
  std::string help;
  std::optional<double> min;      ///< inclusive lower bound (numbers)
  bool min_exclusive = false;     ///< makes `min` exclusive
  std::optional<double> max;      ///< inclusive upper bound (numbers)
  std::vector<std::string> choices;  ///< allowed strings; empty means any
  /// Computes the allowed strings at validation time (registries that grow at run time).
  std::function<std::vector<std::string>()> choices_source = nullptr;
};

/// Every parameter a run may have. Methods come from the library's method registry.
const std::vector<ParameterDef>& run_parameters();
/// The definition of `name`, or nullptr.
const ParameterDef* find_parameter(const std::string& name);
std::vector<std::string> run_parameter_names();

/// Converts `node` to JSON as `def` says, appending a diagnostic (at the node's line) for a wrong
/// type, an out-of-range value or an unknown choice; nullopt when invalid.
std::optional<nlohmann::json> convert_parameter(const ParameterDef& def, const YAML::Node& node,
                                                const std::string& file, std::vector<Diagnostic>& diagnostics);

/// A diagnostic positioned at `node` (yaml-cpp marks are 0-based).
Diagnostic diagnostic_at(const std::string& file, const YAML::Node& node, std::string message);

}  // namespace capaboost::harness
