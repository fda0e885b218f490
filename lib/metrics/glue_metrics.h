#pragma once
// Per-task GLUE metrics and the model-selection score. Values are fractions (0.912), as Hugging Face
// `evaluate` reports them; the paper's tables show them ×100.
//   CoLA: matthews_correlation            — selection: MCC
//   SST-2, QNLI, RTE, MNLI: accuracy      — selection: accuracy
//   MRPC, QQP: accuracy, f1               — selection: their mean
//   STS-B: pearson, spearmanr             — selection: their mean

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/example.h"
#include "data/glue_task.h"
#include "metrics/metric_values.h"

namespace capaboost {

/// The task's metrics from predicted and true class indices (classification tasks).
MetricValues glue_metrics(const TaskInfo& task, const std::vector<int64_t>& predictions,
                          const std::vector<int64_t>& labels);

/// The task's metrics from predicted and true scores (STS-B).
MetricValues glue_metrics(const TaskInfo& task, const std::vector<double>& predictions,
                          const std::vector<double>& labels);

/// The model-selection score: the mean of the task's selection metrics, taken from `metrics`.
double selection_score(const TaskInfo& task, const MetricValues& metrics);

/// The class labels of `examples` (an error if one has none, e.g. a GLUE test file).
std::vector<int64_t> class_labels(const std::vector<Example>& examples);

/// The regression scores of `examples` (an error if one has none).
std::vector<double> score_labels(const std::vector<Example>& examples);

}  // namespace capaboost
