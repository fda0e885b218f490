#include "metrics/classification_metrics.h"

#include <torch/torch.h>

#include <cmath>
#include <map>

namespace capaboost {
namespace {

void check_inputs(const char* metric, const std::vector<int64_t>& predictions,
                  const std::vector<int64_t>& labels) {
  TORCH_CHECK(!labels.empty(), metric, ": no examples to score");
  TORCH_CHECK(predictions.size() == labels.size(), metric, ": ", predictions.size(), " predictions for ",
              labels.size(), " labels; pass one prediction per example");
}

}  // namespace

double accuracy(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels) {
  check_inputs("accuracy", predictions, labels);
  int64_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) correct += predictions[i] == labels[i];
  return static_cast<double>(correct) / static_cast<double>(labels.size());
}

double binary_f1(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels) {
  check_inputs("binary_f1", predictions, labels);
  int64_t tp = 0, fp = 0, fn = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const bool predicted = predictions[i] == 1, actual = labels[i] == 1;
    tp += predicted && actual;
    fp += predicted && !actual;
    fn += !predicted && actual;
  }
  const int64_t denominator = 2 * tp + fp + fn;
  return denominator == 0 ? 0.0 : static_cast<double>(2 * tp) / static_cast<double>(denominator);
}

double matthews_corrcoef(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels) {
  check_inputs("matthews_corrcoef", predictions, labels);
  // Counts stay exact in int64 (s² ≤ 1.6e11 for GLUE's largest dev set); only the final product of
  // the two variances (up to s⁴) needs floating point.
  std::map<int64_t, int64_t> predicted, actual;
  int64_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    ++predicted[predictions[i]];
    ++actual[labels[i]];
    correct += predictions[i] == labels[i];
  }
  const auto s = static_cast<int64_t>(labels.size());
  int64_t cross = 0, predicted_sq = 0, actual_sq = 0;
  for (const auto& [k, count] : predicted) {
    predicted_sq += count * count;
    const auto it = actual.find(k);
    if (it != actual.end()) cross += count * it->second;
  }
  for (const auto& entry : actual) actual_sq += entry.second * entry.second;
  const int64_t covariance = correct * s - cross;
  const int64_t var_predicted = s * s - predicted_sq, var_actual = s * s - actual_sq;
  if (var_predicted == 0 || var_actual == 0) return 0.0;
  return static_cast<double>(covariance) /
         (std::sqrt(static_cast<double>(var_predicted)) * std::sqrt(static_cast<double>(var_actual)));
}

}  // namespace capaboost
