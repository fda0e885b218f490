#pragma once
// DeBERTa-v2/v3 with its masked-language-model head, as transformers 4.30.2's DebertaV2ForMaskedLM: the
// encoder ("deberta") and "cls.predictions" = transform (dense hidden → embedding width, the config's
// hidden_act, LayerNorm) → decoder, whose weight IS the word-embedding matrix (tied), plus
// "cls.predictions.bias". As for RoBERTa, the tied "cls.predictions.decoder.{weight,bias}" are not
// separate tensors: transformers re-ties them on load.
//
//   DebertaV2ForMaskedLM model(DebertaV2Options().vocab_size(8000).hidden_size(128)…);
//   auto out = model->forward(masked_ids, labels);   // logits only where labels != -100

#include <torch/torch.h>

#include "models/deberta_v2.h"
#include "models/masked_lm.h"

namespace capaboost {

/// "transform": dense (hidden → embedding width) → the config's hidden_act → LayerNorm.
class DebertaV2PredictionHeadTransformImpl : public torch::nn::Module {
 public:
  explicit DebertaV2PredictionHeadTransformImpl(const DebertaV2Options& options);
  /// features: (…, C) → (…, E).
  torch::Tensor forward(const torch::Tensor& features);

  Activation activation;
  TunableLinear dense{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "LayerNorm"
};
TORCH_MODULE(DebertaV2PredictionHeadTransform);

/// transform → decoder (tied to the word embeddings) + bias.
class DebertaV2LMPredictionHeadImpl : public torch::nn::Module {
 public:
  /// `word_embeddings` is the encoder's (vocab_size, embedding width) module: its weight is the decoder
  /// weight (shared, not registered here, so optimizers and checkpoints see it once).
  DebertaV2LMPredictionHeadImpl(const DebertaV2Options& options, torch::nn::Embedding word_embeddings);

  /// features: (…, C) → vocabulary logits (…, V).
  torch::Tensor forward(const torch::Tensor& features);
  /// The decoder weight (V, E): the word-embedding parameter itself.
  const torch::Tensor& decoder_weight() const { return word_embeddings_->weight; }

  DebertaV2PredictionHeadTransform transform{nullptr};
  torch::Tensor bias;  // (V), "bias" (the decoder's bias)

 private:
  torch::nn::Embedding word_embeddings_;
};
TORCH_MODULE(DebertaV2LMPredictionHead);

/// The encoder ("deberta") and the MLM head ("cls.predictions").
class DebertaV2ForMaskedLMImpl : public MaskedLMImpl {
 public:
  explicit DebertaV2ForMaskedLMImpl(const DebertaV2Options& options);

  /// The MLM objective (MaskedLMImpl::forward); the vocabulary projection runs on the target rows only.
  MaskedLMOutput forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                         const torch::Tensor& attention_mask = {}) override;
  /// transformers' MaskedLMOutput.logits: (B, T, V) at every position (for inspection and tests).
  torch::Tensor full_logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {});

  /// max_position_embeddings: relative attention itself accepts any length, but the absolute positions
  /// (when position_biased_input) and the checkpoints' contract do not.
  int64_t max_length() const override { return options.max_position_embeddings(); }
  torch::nn::Embedding& word_embeddings() override { return deberta->embeddings->word_embeddings; }
  double initializer_range() const override { return options.initializer_range(); }
  /// save_pretrained(*this, dir) of models/deberta_v2_pretrained.h.
  void save_pretrained_directory(const std::string& dir) override;

  DebertaV2Options options;
  DebertaV2Model deberta{nullptr};
  DebertaV2LMPredictionHead predictions{nullptr};  // "cls.predictions"
};
TORCH_MODULE(DebertaV2ForMaskedLM);

}  // namespace capaboost
