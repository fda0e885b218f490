#pragma once
// RoBERTa with its masked-language-model head, as transformers 4.30.2's RobertaForMaskedLM: the encoder
// without pooler ("roberta") and "lm_head" = dense → exact GELU → layer_norm → decoder, whose weight IS
// the word-embedding matrix (tied) and whose bias is "lm_head.bias". The names in the state dict are
// transformers' after its save-time filtering: the tied "lm_head.decoder.weight" / "lm_head.decoder.bias"
// are not separate tensors here, exactly as transformers leaves them out of model.safetensors
// (_keys_to_ignore_on_save) and re-ties them on load.
//
//   RobertaForMaskedLM model(RobertaOptions().vocab_size(8000).hidden_size(256)…);
//   auto out = model->forward(masked_ids, labels);   // logits only where labels != -100
//   out.loss.backward();

#include <torch/torch.h>

#include "models/roberta.h"
#include "models/roberta_config.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// The label value that marks a position without an MLM target (PyTorch's ignore_index default).
inline constexpr int64_t kIgnoreLabel = -100;

/// dense → GELU → layer_norm → decoder (tied to the word embeddings) + bias.
class RobertaLMHeadImpl : public torch::nn::Module {
 public:
  /// `word_embeddings` is the encoder's embedding module: its weight is the decoder weight (shared,
  /// not copied, and not registered here, so optimizers and checkpoints see it once).
  RobertaLMHeadImpl(const RobertaOptions& options, torch::nn::Embedding word_embeddings);

  /// features: (…, C) → vocabulary logits (…, V).
  torch::Tensor forward(const torch::Tensor& features);
  /// The decoder weight (V, C): the word-embedding parameter itself.
  const torch::Tensor& decoder_weight() const { return word_embeddings_->weight; }

  TunableLinear dense{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "layer_norm" (lower case in transformers' LM head)
  torch::Tensor bias;                        // (V), "lm_head.bias" (the decoder's bias)

 private:
  torch::nn::Embedding word_embeddings_;
};
TORCH_MODULE(RobertaLMHead);

/// What the MLM forward returns.
struct MaskedLMOutput {
  torch::Tensor loss;    ///< scalar mean cross-entropy over the target positions
  torch::Tensor logits;  ///< (N, V): logits of the N target positions only, in row-major (b, t) order
  torch::Tensor labels;  ///< (N): their targets
};

/// The encoder without pooler ("roberta") and the LM head ("lm_head").
class RobertaForMaskedLMImpl : public torch::nn::Module {
 public:
  explicit RobertaForMaskedLMImpl(const RobertaOptions& options);

  /// The MLM objective. input_ids: (B, T) with masking applied; labels: (B, T), the original id at the
  /// target positions and kIgnoreLabel elsewhere; attention_mask as RobertaModel (undefined = all 1).
  /// The vocabulary projection (the largest matrix) runs on the N target rows only, which is equal to
  /// transformers' full-sequence logits followed by cross-entropy with ignore_index = -100. Fails when no
  /// position has a target (transformers would return NaN).
  MaskedLMOutput forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                         const torch::Tensor& attention_mask = {});

  /// transformers' MaskedLMOutput.logits: (B, T, V) at every position (for inspection and tests).
  torch::Tensor full_logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {});

  RobertaOptions options;
  RobertaModel roberta{nullptr};
  RobertaLMHead lm_head{nullptr};
};
TORCH_MODULE(RobertaForMaskedLM);

/// transformers' MLM loss: cross-entropy of logits (…, V) against labels (…), positions labelled
/// kIgnoreLabel excluded from the mean.
torch::Tensor masked_lm_loss(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace capaboost
