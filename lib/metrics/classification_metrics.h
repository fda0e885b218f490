#pragma once
// Classification metrics of GLUE, on class indices: accuracy, binary F1 and Matthews correlation.
// Conventions follow scikit-learn (which Hugging Face `evaluate`'s glue metric calls) where a value is
// undefined: F1 = 0 when there are no true and no predicted positives; MCC = 0 when a row or column
// of the confusion matrix is empty (e.g. constant predictions).

#include <cstdint>
#include <vector>

namespace capaboost {

/// Fraction of predictions equal to their label. Inputs must be non-empty and of equal size.
double accuracy(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels);

/// F1 of the positive class 1 (MRPC "equivalent", QQP "duplicate"): 2·TP / (2·TP + FP + FN), any
/// other class counting as negative; 0 if there is no positive at all.
double binary_f1(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels);

/// Matthews correlation coefficient for any number of classes (Gorodkin's R_K, as scikit-learn):
/// (c·s − Σ_k p_k·t_k) / √((s² − Σ p_k²)(s² − Σ t_k²)) with c correct, s samples, p_k/t_k predicted/true
/// counts of class k. In [−1, 1]; 0 if the denominator is 0.
double matthews_corrcoef(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels);

}  // namespace capaboost
