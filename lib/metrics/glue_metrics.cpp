#include "metrics/glue_metrics.h"

#include <torch/torch.h>

#include "metrics/classification_metrics.h"
#include "metrics/correlation.h"

namespace capaboost {

MetricValues glue_metrics(const TaskInfo& task, const std::vector<int64_t>& predictions,
                          const std::vector<int64_t>& labels) {
  TORCH_CHECK(!task.regression, task.name,
              " is a regression task: pass predicted and true scores (double), "
              "not class indices");
  for (size_t i = 0; i < predictions.size(); ++i) {
    TORCH_CHECK(predictions[i] >= 0 && predictions[i] < task.num_labels, task.name, ": prediction ", i,
                " is class ", predictions[i], ", outside 0..", task.num_labels - 1);
  }
  MetricValues values;
  for (const auto& name : task.metric_names) {
    if (name == "accuracy") {
      values[name] = accuracy(predictions, labels);
    } else if (name == "f1") {
      values[name] = binary_f1(predictions, labels);
    } else if (name == "matthews_correlation") {
      values[name] = matthews_corrcoef(predictions, labels);
    } else {
      TORCH_CHECK(false, task.name, ": metric '", name, "' is not a classification metric");
    }
  }
  return values;
}

MetricValues glue_metrics(const TaskInfo& task, const std::vector<double>& predictions,
                          const std::vector<double>& labels) {
  TORCH_CHECK(task.regression, task.name,
              " is a classification task: pass predicted and true class indices "
              "(int64), not scores");
  MetricValues values;
  for (const auto& name : task.metric_names) {
    if (name == "pearson") {
      values[name] = pearson(predictions, labels);
    } else if (name == "spearmanr") {
      values[name] = spearman(predictions, labels);
    } else {
      TORCH_CHECK(false, task.name, ": metric '", name, "' is not a regression metric");
    }
  }
  return values;
}

double selection_score(const TaskInfo& task, const MetricValues& metrics) {
  TORCH_CHECK(!task.selection_metrics.empty(), task.name, " has no selection metric");
  double sum = 0.0;
  for (const auto& name : task.selection_metrics) {
    const auto it = metrics.find(name);
    TORCH_CHECK(it != metrics.end(), task.name, ": the selection metric '", name,
                "' is missing from the metrics given; compute them with glue_metrics");
    sum += it->second;
  }
  return sum / static_cast<double>(task.selection_metrics.size());
}

std::vector<int64_t> class_labels(const std::vector<Example>& examples) {
  std::vector<int64_t> labels;
  labels.reserve(examples.size());
  for (const auto& example : examples) {
    TORCH_CHECK(example.has_class(), "the example from line ", example.line,
                " has no class label (an unlabeled test file, or a regression task?)");
    labels.push_back(example.class_id());
  }
  return labels;
}

std::vector<double> score_labels(const std::vector<Example>& examples) {
  std::vector<double> labels;
  labels.reserve(examples.size());
  for (const auto& example : examples) {
    TORCH_CHECK(example.has_score(), "the example from line ", example.line,
                " has no score (an unlabeled test file, or a classification task?)");
    labels.push_back(example.score());
  }
  return labels;
}

}  // namespace capaboost
