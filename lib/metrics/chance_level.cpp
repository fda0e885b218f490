#include "metrics/chance_level.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "metrics/glue_metrics.h"

namespace capaboost {

ChanceLevels glue_chance_levels(const TaskInfo& task, const std::vector<Example>& examples) {
  TORCH_CHECK(!examples.empty(), task.name, ": no examples to take chance levels over");
  const double n = static_cast<double>(examples.size());
  ChanceLevels chance;
  if (task.regression) {
    for (const auto& name : task.metric_names) {
      chance.level[name] = 0.0;
      chance.standard_error[name] = 1.0 / std::sqrt(n);
    }
    return chance;
  }
  const auto labels = class_labels(examples);
  // Each class predicted for every example, scored by the task's own metrics; the best of them per metric.
  for (int64_t c = 0; c < task.num_labels; ++c) {
    const MetricValues constant = glue_metrics(task, std::vector<int64_t>(labels.size(), c), labels);
    for (const auto& [name, value] : constant) {
      const double finite = std::isfinite(value) ? value : 0.0;
      chance.level[name] = c == 0 ? finite : std::max(chance.level[name], finite);
    }
  }
  const double positive = static_cast<double>(std::count(labels.begin(), labels.end(), int64_t{1})) / n;
  for (const auto& [name, level] : chance.level) {
    if (name == "accuracy") {
      chance.standard_error[name] = std::sqrt(level * (1.0 - level) / n);
    } else if (name == "f1") {
      chance.standard_error[name] = 2.0 / ((1.0 + positive) * (1.0 + positive)) * std::sqrt(positive * (1.0 - positive) / n);
    } else {
      chance.standard_error[name] = 1.0 / std::sqrt(n);
    }
  }
  return chance;
}

}  // namespace capaboost
