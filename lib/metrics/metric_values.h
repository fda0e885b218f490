#pragma once
// Metric values by name ("accuracy", "matthews_correlation", "exact_match", …), as fractions (0.912)
// the way Hugging Face `evaluate` reports them.

#include <map>
#include <string>

namespace capaboost {

using MetricValues = std::map<std::string, double>;

}  // namespace capaboost
