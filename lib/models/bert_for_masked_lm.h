#pragma once
// BERT with its masked-language-model head, as transformers' BertForMaskedLM: the encoder without pooler
// ("bert") and "cls.predictions" = transform (dense → hidden_act → LayerNorm) → decoder, whose weight IS
// the word-embedding matrix (tied) and whose bias is "cls.predictions.bias". As for RoBERTa
// (models/roberta_for_masked_lm.h), the tied decoder tensors are not separate parameters here, as
// transformers leaves them out of model.safetensors and re-ties them on load.
//
//   BertForMaskedLM model(bert_options().num_hidden_layers(2));
//   auto out = model->forward(masked_ids, labels);   // logits only where labels != -100

#include <torch/torch.h>

#include "models/bert_model.h"
#include "models/masked_lm.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// dense → hidden_act → LayerNorm ("transform").
class BertPredictionHeadTransformImpl : public torch::nn::Module {
 public:
  explicit BertPredictionHeadTransformImpl(const BertOptions& options);
  /// x: (…, C) → (…, C).
  torch::Tensor forward(const torch::Tensor& x);

  Activation activation;
  TunableLinear dense{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};  // "LayerNorm"
};
TORCH_MODULE(BertPredictionHeadTransform);

/// transform → decoder (tied to the word embeddings) + bias ("cls.predictions").
class BertLMPredictionHeadImpl : public torch::nn::Module {
 public:
  /// `word_embeddings` is the encoder's embedding module: its weight is the decoder weight (shared, not
  /// copied, and not registered here).
  BertLMPredictionHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings);
  /// features: (…, C) → vocabulary logits (…, V).
  torch::Tensor forward(const torch::Tensor& features);

  BertPredictionHeadTransform transform{nullptr};
  torch::Tensor bias;  // (V), "cls.predictions.bias"

 private:
  torch::nn::Embedding word_embeddings_;
};
TORCH_MODULE(BertLMPredictionHead);

/// transformers' BertOnlyMLMHead: the module "cls" holding "predictions".
class BertOnlyMLMHeadImpl : public torch::nn::Module {
 public:
  BertOnlyMLMHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings);
  torch::Tensor forward(const torch::Tensor& features) { return predictions->forward(features); }

  BertLMPredictionHead predictions{nullptr};
};
TORCH_MODULE(BertOnlyMLMHead);

/// The encoder without pooler ("bert") and the MLM head ("cls").
class BertForMaskedLMImpl : public MaskedLMImpl {
 public:
  explicit BertForMaskedLMImpl(const BertOptions& options);

  /// The MLM objective (MaskedLMImpl::forward); the vocabulary projection runs on the target rows only.
  MaskedLMOutput forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                         const torch::Tensor& attention_mask = {}) override;
  int64_t max_length() const override { return options.max_length(); }
  torch::nn::Embedding& word_embeddings() override { return bert->embeddings->word_embeddings; }
  double initializer_range() const override { return options.initializer_range(); }
  /// save_pretrained(*this, dir) of models/bert_pretrained.h.
  void save_pretrained_directory(const std::string& dir) override;

  /// transformers' MaskedLMOutput.logits: (B, T, V) at every position (for inspection and tests).
  torch::Tensor full_logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                            const torch::Tensor& token_type_ids = {});

  BertOptions options;
  BertModel bert{nullptr};
  BertOnlyMLMHead cls{nullptr};
};
TORCH_MODULE(BertForMaskedLM);

}  // namespace capaboost
