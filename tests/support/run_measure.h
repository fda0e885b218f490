#pragma once
// Runs one measure in-process on a configuration given as JSON, as a spec's run would resolve it
// (defaults filled, values checked): the measure tests' one way in.

#include <nlohmann/json.hpp>

#include <string>

#include "measures/measure_registry.h"

namespace capaboost::testing {

inline harness::MeasureResult run_measure(const std::string& name, const nlohmann::json& given) {
  const harness::MeasureSpec& measure = harness::find_measure(name);
  return measure.run(resolve_or_throw(harness::run_parameters(measure), given, name + " measure test"),
                     harness::RunContext{});
}

}  // namespace capaboost::testing
