#pragma once
// The Llama decoder stack as transformers' LlamaModel: token embedding ("embed_tokens"), decoder layers
// ("layers.<i>") and the final RMSNorm ("norm"); the causal-LM and sequence-classification models put
// it under "model".
//
//   LlamaModel model(options);
//   LlamaCache cache;                                                    // for generation
//   auto out = model->forward(prompt_ids, prompt_mask, {}, &cache);      // (B, T, C), cache holds T
//   auto next = model->forward(token_ids, extended_mask, {}, &cache);    // (B, 1, C), cache holds T + 1

#include <torch/torch.h>

#include <vector>

#include "models/llama_config.h"
#include "models/llama_layers.h"
#include "models/rms_norm.h"

namespace capaboost {

/// Every layer's keys and values of the positions seen so far (a key-value cache for generation).
struct LlamaCache {
  std::vector<LlamaLayerCache> layers;
  /// Positions cached (0 before the first forward).
  int64_t length() const;
};

struct LlamaModelOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C), after the final norm
  std::vector<torch::Tensor> hidden_states;  ///< when asked: the embeddings, then every layer's output
                                             ///< (the last one after the final norm, as transformers)
};

class LlamaModelImpl : public torch::nn::Module {
 public:
  explicit LlamaModelImpl(const LlamaOptions& options);

  /// input_ids: (B, T) int64. attention_mask: (B, S) over the cached and new positions (S = cached + T;
  /// 1 real, 0 padding), undefined for all real. position_ids: (B, T); undefined means each real token's
  /// index among its row's real tokens (attention_mask's running count − 1, as transformers' generate
  /// computes them), so left padding shifts nothing — transformers' forward without position_ids counts
  /// padding too (0 … T − 1); pass them explicitly to reproduce that. With `cache`, the new tokens attend
  /// over the cached positions and are appended to the cache.
  LlamaModelOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                           const torch::Tensor& position_ids = {}, LlamaCache* cache = nullptr,
                           bool output_hidden_states = false);

  LlamaOptions options;
  torch::nn::Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm norm{nullptr};
};
TORCH_MODULE(LlamaModel);

}  // namespace capaboost
