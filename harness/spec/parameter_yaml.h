#pragma once
// Reading a run parameter's value from a spec's YAML: typed by the parameter catalogue (names the
// registered measures, methods and tasks declare), so `rank: 8` becomes an integer and `rank: eight`
// an error at its line.

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "measures/parameter_catalogue.h"
#include "spec/diagnostics.h"

namespace capaboost::harness {

/// Where `node` is in `file` (yaml-cpp marks are 0-based; a mark-less node gives line 0).
SourceMark mark_of(const std::string& file, const YAML::Node& node);

/// `node` as JSON of `entry`'s type; nullopt after appending a diagnostic at the node when it is not
/// of that type.
std::optional<nlohmann::json> parameter_from_yaml(const std::string& name, const CatalogueEntry& entry,
                                                  const YAML::Node& node, const std::string& file,
                                                  std::vector<Diagnostic>& diagnostics);

}  // namespace capaboost::harness
