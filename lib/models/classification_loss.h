#pragma once
// The loss Hugging Face's *ForSequenceClassification models compute from logits and labels.

#include <torch/torch.h>

#include <optional>
#include <string>

namespace capaboost {

/// A config's `problem_type`.
enum class ProblemType {
  kRegression,                 ///< "regression": MSE
  kSingleLabelClassification,  ///< "single_label_classification": cross-entropy over classes
  kMultiLabelClassification,   ///< "multi_label_classification": BCE with logits per label
};

/// Parses a `problem_type` value; throws listing the three names.
ProblemType parse_problem_type(const std::string& name);
std::string to_string(ProblemType problem_type);

/// The problem type transformers 4.30.2 uses when the config leaves it unset: regression for one
/// label, single-label classification for integer labels, multi-label otherwise.
ProblemType infer_problem_type(int64_t num_labels, const torch::Tensor& labels);

/// logits: (B, num_labels); labels: (B) class ids, (B) or (B, 1) targets for regression, (B, num_labels)
/// for multi-label. Mean over the batch, as transformers computes it (regression with one label squeezes
/// both sides first).
torch::Tensor sequence_classification_loss(const torch::Tensor& logits, const torch::Tensor& labels,
                                           std::optional<ProblemType> problem_type = std::nullopt);

}  // namespace capaboost
