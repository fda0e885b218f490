#pragma once
// The Llama decoder with its language-model head, as transformers' LlamaForCausalLM: the decoder
// ("model") and the output projection to the vocabulary — the token embedding itself when
// tie_word_embeddings (SmolLM2), else its own "lm_head".
//
//   LlamaForCausalLM lm(options);
//   torch::Tensor logits = lm->forward(input_ids, attention_mask);   // (B, T, vocab)
//   torch::Tensor loss = causal_lm_loss(logits, labels);             // labels −100 where not scored

#include <torch/torch.h>

#include "models/llama_model.h"

namespace capaboost {

/// The label value a causal-LM loss skips (PyTorch's and transformers' ignore_index).
inline constexpr int64_t kIgnoredLabel = -100;

/// transformers' causal-LM loss: the logits at position t predict labels[t + 1]; the mean cross-entropy
/// (in float32) over every predicted label that is not kIgnoredLabel. logits: (B, T, V); labels: (B, T)
/// int64 → scalar.
torch::Tensor causal_lm_loss(const torch::Tensor& logits, const torch::Tensor& labels);

class LlamaForCausalLMImpl : public torch::nn::Module {
 public:
  explicit LlamaForCausalLMImpl(const LlamaOptions& options);

  /// Inputs as LlamaModel::forward → logits (B, T, vocab).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                        const torch::Tensor& position_ids = {}, LlamaCache* cache = nullptr);
  /// The output projection of hidden states (…, C) → (…, vocab).
  torch::Tensor project(const torch::Tensor& hidden);

  LlamaOptions options;
  LlamaModel model{nullptr};
  torch::nn::Linear lm_head{nullptr};  // (vocab, C); unregistered when the embedding is tied
};
TORCH_MODULE(LlamaForCausalLM);

}  // namespace capaboost
