#pragma once
// What a model that learned nothing scores: the chance level of each GLUE metric on a labelled split,
// and how far sampling alone moves a score around it. A row whose score stays within that band on every
// seed did not learn, and a claim about it tests nothing (harness/report/paired_comparison.h, rule 2).

#include <vector>

#include "data/example.h"
#include "data/glue_task.h"
#include "metrics/metric_values.h"

namespace capaboost {

struct ChanceLevels {
  /// Per metric, the best score a constant prediction reaches on the split (the suite's own metric code
  /// over each class predicted everywhere): accuracy at the majority class, F1 with every example called
  /// positive; Matthews correlation, Pearson and Spearman at 0 (a constant has no correlation).
  MetricValues level;
  /// Per metric, the standard error of a chance-level score over the split's n examples: √(p(1 − p)/n)
  /// for accuracy, the delta method's 2/(1 + q)² · √(q(1 − q)/n) for F1 (q the positive fraction), and
  /// 1/√n for the correlations (their spread under no association).
  MetricValues standard_error;
};

/// The chance levels of `task`'s metrics on `examples`, which must all carry labels.
ChanceLevels glue_chance_levels(const TaskInfo& task, const std::vector<Example>& examples);

}  // namespace capaboost
