#include "models/bert_for_masked_lm.h"

#include "models/bert_pretrained.h"

namespace capaboost {

BertPredictionHeadTransformImpl::BertPredictionHeadTransformImpl(const BertOptions& options)
    : activation(options.hidden_act()) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  layer_norm = register_module(
      "LayerNorm",
      torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps())));
}

torch::Tensor BertPredictionHeadTransformImpl::forward(const torch::Tensor& x) {
  // Unlike RoBERTa's LM head (always exact GELU), BERT's applies the config's hidden_act.
  return layer_norm->forward(activate(activation, dense->forward(x)));
}

BertLMPredictionHeadImpl::BertLMPredictionHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings)
    : word_embeddings_(std::move(word_embeddings)) {
  TORCH_CHECK(word_embeddings_ && word_embeddings_->weight.size(0) == options.vocab_size() &&
                  word_embeddings_->weight.size(1) == options.hidden_size(),
              "BertLMPredictionHead: the tied word embeddings must be (vocab_size, hidden_size) = (",
              options.vocab_size(), ", ", options.hidden_size(), ")");
  transform = register_module("transform", BertPredictionHeadTransform(options));
  bias = register_parameter("bias", torch::zeros({options.vocab_size()}));
}

torch::Tensor BertLMPredictionHeadImpl::forward(const torch::Tensor& features) {
  return torch::nn::functional::linear(transform->forward(features), word_embeddings_->weight, bias);  // (…, V)
}

BertOnlyMLMHeadImpl::BertOnlyMLMHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings) {
  predictions = register_module("predictions", BertLMPredictionHead(options, std::move(word_embeddings)));
}

BertForMaskedLMImpl::BertForMaskedLMImpl(const BertOptions& options_) : options(options_) {
  TORCH_CHECK(options.family() == BertFamily::kBert,
              "BertForMaskedLM: the options describe a RoBERTa encoder; use RobertaForMaskedLM");
  bert = register_module("bert", BertModel(options, /*add_pooling_layer=*/false));
  cls = register_module("cls", BertOnlyMLMHead(options, bert->embeddings->word_embeddings));
  // The encoder initialised itself; the head's dense and LayerNorm get the same recipe, bias stays 0.
  init_transformer_weights(*cls, options.initializer_range());
}

MaskedLMOutput BertForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                                            const torch::Tensor& attention_mask) {
  const auto hidden = bert->forward(input_ids, attention_mask).last_hidden_state;  // (B, T, C)
  return masked_lm_output(
      hidden, labels, [this](const torch::Tensor& rows) { return cls->forward(rows); }, "BertForMaskedLM");
}

torch::Tensor BertForMaskedLMImpl::full_logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                               const torch::Tensor& token_type_ids) {
  return cls->forward(bert->forward(input_ids, attention_mask, token_type_ids).last_hidden_state);  // (B, T, V)
}

void BertForMaskedLMImpl::save_pretrained_directory(const std::string& dir) { save_pretrained(*this, dir); }

}  // namespace capaboost
