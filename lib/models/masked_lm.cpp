#include "models/masked_lm.h"

namespace capaboost {

MaskedLMOutput masked_lm_output(const torch::Tensor& hidden, const torch::Tensor& labels,
                                const std::function<torch::Tensor(const torch::Tensor&)>& head,
                                const std::string& model_name) {
  TORCH_CHECK(hidden.dim() == 3 && labels.sizes() == hidden.sizes().slice(0, 2), model_name, ": labels ",
              labels.sizes(), " must have the shape of input_ids ", hidden.sizes().slice(0, 2));
  const auto flat_labels = labels.reshape({-1});                              // (B·T)
  const auto positions = (flat_labels != kIgnoreLabel).nonzero().squeeze(1);  // (N)
  TORCH_CHECK(positions.numel() > 0, model_name,
              ": no position has an MLM target (every label is -100); mask at least one token");
  const auto selected = hidden.reshape({-1, hidden.size(-1)}).index_select(0, positions);  // (N, C)
  MaskedLMOutput out;
  out.labels = flat_labels.index_select(0, positions);  // (N)
  out.logits = head(selected);                          // (N, V)
  out.loss = torch::nn::functional::cross_entropy(out.logits, out.labels);
  return out;
}

torch::Tensor masked_lm_loss(const torch::Tensor& logits, const torch::Tensor& labels) {
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), labels.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kIgnoreLabel));
}

}  // namespace capaboost
