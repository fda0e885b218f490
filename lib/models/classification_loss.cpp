#include "models/classification_loss.h"

namespace capaboost {

ProblemType parse_problem_type(const std::string& name) {
  if (name == "regression") return ProblemType::kRegression;
  if (name == "single_label_classification") return ProblemType::kSingleLabelClassification;
  if (name == "multi_label_classification") return ProblemType::kMultiLabelClassification;
  TORCH_CHECK(false, "unknown problem_type '", name,
              "'; choose regression, single_label_classification or multi_label_classification");
}

std::string to_string(ProblemType problem_type) {
  switch (problem_type) {
    case ProblemType::kRegression:
      return "regression";
    case ProblemType::kSingleLabelClassification:
      return "single_label_classification";
    case ProblemType::kMultiLabelClassification:
      return "multi_label_classification";
  }
  TORCH_CHECK(false, "unknown ProblemType value ", static_cast<int>(problem_type));
}

ProblemType infer_problem_type(int64_t num_labels, const torch::Tensor& labels) {
  if (num_labels == 1) return ProblemType::kRegression;
  if (labels.scalar_type() == torch::kLong || labels.scalar_type() == torch::kInt) {
    return ProblemType::kSingleLabelClassification;
  }
  return ProblemType::kMultiLabelClassification;
}

torch::Tensor sequence_classification_loss(const torch::Tensor& logits, const torch::Tensor& labels,
                                           std::optional<ProblemType> problem_type) {
  TORCH_CHECK(logits.dim() == 2, "sequence_classification_loss: logits must be (batch, num_labels), got ",
              logits.sizes());
  const int64_t num_labels = logits.size(1);
  switch (problem_type.value_or(infer_problem_type(num_labels, labels))) {
    case ProblemType::kRegression:
      // transformers squeezes both sides for one label, so (B,) and (B, 1) labels give the same loss.
      if (num_labels == 1)
        return torch::mse_loss(logits.squeeze(), labels.squeeze().to(logits.scalar_type()));
      return torch::mse_loss(logits, labels.to(logits.scalar_type()));
    case ProblemType::kSingleLabelClassification:
      return torch::nn::functional::cross_entropy(logits.view({-1, num_labels}),
                                                  labels.view(-1).to(torch::kLong));
    case ProblemType::kMultiLabelClassification:
      return torch::binary_cross_entropy_with_logits(logits, labels.to(logits.scalar_type()));
  }
  TORCH_CHECK(false, "sequence_classification_loss: unknown problem type");
}

}  // namespace capaboost
