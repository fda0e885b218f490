#pragma once
// Resolving a run's given parameters against what its plugins declare: every default filled, every
// value checked, every given name accounted for.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "params/parameter.h"

namespace capaboost {

struct ParameterProblem {
  std::string parameter;  ///< the parameter the problem is about
  std::string message;
};

struct Resolution {
  /// Every declared parameter that applies, with its given, default or derived value (sorted keys,
  /// numbers of number-typed parameters as floating point, so equal configs serialise equally).
  nlohmann::json config = nlohmann::json::object();
  /// The definitions that applied, in resolution order (the root's, then those their values selected).
  ParameterList definitions;
  std::vector<ParameterProblem> problems;
  /// Given names no applicable definition declares.
  std::vector<std::string> unused;
  /// A parameter that selects a plugin was missing or invalid: that plugin's definitions never joined,
  /// so `unused` may list names that would apply once the value is fixed.
  bool incomplete = false;

  bool ok() const { return problems.empty() && unused.empty(); }
};

/// Walks `root` in order. A given value is checked (check_value); a missing one takes its default,
/// its derivation from the parameters resolved before it, or stays unset when optional; a missing
/// required one is a problem. When a value selects a plugin, that plugin's definitions join the walk.
/// A name declared twice among the applicable definitions is a problem (two homes).
Resolution resolve_parameters(const ParameterList& root, const nlohmann::json& given);

}  // namespace capaboost
