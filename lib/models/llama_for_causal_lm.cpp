#include "models/llama_for_causal_lm.h"

namespace capaboost {

torch::Tensor causal_lm_loss(const torch::Tensor& logits, const torch::Tensor& labels) {
  TORCH_CHECK(logits.dim() == 3 && labels.dim() == 2 && logits.size(0) == labels.size(0) &&
                  logits.size(1) == labels.size(1),
              "causal_lm_loss: logits (B, T, V) and labels (B, T) disagree: ", logits.sizes(), " and ", labels.sizes());
  const int64_t predicted = logits.size(1) - 1;
  const auto shifted_logits = logits.narrow(1, 0, predicted).to(torch::kFloat).reshape({-1, logits.size(2)});
  const auto shifted_labels = labels.narrow(1, 1, predicted).reshape({-1});
  return torch::nn::functional::cross_entropy(
      shifted_logits, shifted_labels, torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kIgnoredLabel));
}

LlamaForCausalLMImpl::LlamaForCausalLMImpl(const LlamaOptions& options) : options(options) {
  model = register_module("model", LlamaModel(options));
  if (!options.tie_word_embeddings()) {
    lm_head = register_module(
        "lm_head", torch::nn::Linear(torch::nn::LinearOptions(options.hidden_size(), options.vocab_size()).bias(false)));
    torch::NoGradGuard no_grad;
    lm_head->weight.normal_(0.0, options.initializer_range());
  }
}

torch::Tensor LlamaForCausalLMImpl::project(const torch::Tensor& hidden) {
  const auto& weight = lm_head ? lm_head->weight : model->embed_tokens->weight;  // (vocab, C)
  return torch::matmul(hidden, weight.t());
}

torch::Tensor LlamaForCausalLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                            const torch::Tensor& position_ids, LlamaCache* cache) {
  return project(model->forward(input_ids, attention_mask, position_ids, cache).last_hidden_state);
}

}  // namespace capaboost
