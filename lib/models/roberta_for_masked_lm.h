#pragma once
// RoBERTa with its masked-language-model head, as transformers 4.30.2's RobertaForMaskedLM: the encoder
// without pooler ("roberta") and "lm_head" = dense → exact GELU → layer_norm → decoder, whose weight IS
// the word-embedding matrix (tied) and whose bias is "lm_head.bias". The names in the state dict are
// transformers' after its save-time filtering: the tied "lm_head.decoder.weight" / "lm_head.decoder.bias"
// are not separate tensors here, exactly as transformers leaves them out of model.safetensors
// (_keys_to_ignore_on_save) and re-ties them on load.
//
//   RobertaForMaskedLM model(roberta_options().vocab_size(8000).hidden_size(256)…);
//   auto out = model->forward(masked_ids, labels);   // logits only where labels != -100
//   out.loss.backward();

#include <torch/torch.h>

#include "models/masked_lm.h"
#include "models/roberta.h"
#include "models/bert_config.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// dense → GELU → layer_norm → decoder (tied to the word embeddings) + bias.
class RobertaLMHeadImpl : public torch::nn::Module {
 public:
  /// `word_embeddings` is the encoder's embedding module: its weight is the decoder weight (shared,
  /// not copied, and not registered here, so optimizers and checkpoints see it once).
  RobertaLMHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings);

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

/// The encoder without pooler ("roberta") and the LM head ("lm_head").
class RobertaForMaskedLMImpl : public MaskedLMImpl {
 public:
  explicit RobertaForMaskedLMImpl(const BertOptions& options);

  /// The MLM objective (MaskedLMImpl::forward); the vocabulary projection runs on the target rows only.
  MaskedLMOutput forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                         const torch::Tensor& attention_mask = {}) override;
  /// BertOptions::max_length.
  int64_t max_length() const override {
    return options.max_length();
  }
  torch::nn::Embedding& word_embeddings() override { return roberta->embeddings->word_embeddings; }
  double initializer_range() const override { return options.initializer_range(); }
  /// save_pretrained(*this, dir) of models/roberta_pretrained.h.
  void save_pretrained_directory(const std::string& dir) override;

  /// transformers' MaskedLMOutput.logits: (B, T, V) at every position (for inspection and tests).
  torch::Tensor full_logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {});

  BertOptions options;
  BertModel roberta{nullptr};
  RobertaLMHead lm_head{nullptr};
};
TORCH_MODULE(RobertaForMaskedLM);

}  // namespace capaboost
