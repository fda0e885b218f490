#include "models/deberta_v2_for_masked_lm.h"

#include "models/deberta_v2_pretrained.h"

namespace capaboost {

DebertaV2PredictionHeadTransformImpl::DebertaV2PredictionHeadTransformImpl(const DebertaV2Options& options)
    : activation(options.hidden_act()) {
  const auto width = options.effective_embedding_size();
  dense = register_module("dense", TunableLinear(options.hidden_size(), width));
  layer_norm = register_module(
      "LayerNorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(options.layer_norm_eps())));
}

torch::Tensor DebertaV2PredictionHeadTransformImpl::forward(const torch::Tensor& features) {
  // Unlike RoBERTa's LM head (always the exact GELU), DeBERTa's transform uses config.hidden_act.
  return layer_norm->forward(activate(activation, dense->forward(features)));  // (…, E)
}

DebertaV2LMPredictionHeadImpl::DebertaV2LMPredictionHeadImpl(const DebertaV2Options& options,
                                                             torch::nn::Embedding word_embeddings)
    : word_embeddings_(std::move(word_embeddings)) {
  TORCH_CHECK(word_embeddings_ && word_embeddings_->weight.size(0) == options.vocab_size() &&
                  word_embeddings_->weight.size(1) == options.effective_embedding_size(),
              "DebertaV2LMPredictionHead: the tied word embeddings must be (vocab_size, embedding_size) = (",
              options.vocab_size(), ", ", options.effective_embedding_size(), ")");
  transform = register_module("transform", DebertaV2PredictionHeadTransform(options));
  bias = register_parameter("bias", torch::zeros({options.vocab_size()}));
}

torch::Tensor DebertaV2LMPredictionHeadImpl::forward(const torch::Tensor& features) {
  return torch::nn::functional::linear(transform->forward(features), word_embeddings_->weight, bias);  // (…, V)
}

DebertaV2ForMaskedLMImpl::DebertaV2ForMaskedLMImpl(const DebertaV2Options& options_) : options(options_) {
  deberta = register_module("deberta", DebertaV2Model(options));
  // transformers nests the head as cls (DebertaV2OnlyMLMHead) → predictions; the names follow.
  auto cls = register_module("cls", std::make_shared<torch::nn::Module>());
  predictions = cls->register_module("predictions",
                                     DebertaV2LMPredictionHead(options, deberta->embeddings->word_embeddings));
  // The encoder initialised itself; the head's dense layer is drawn the same way, LayerNorm and bias
  // keep their 1/0 start.
  init_transformer_weights(*predictions, options.initializer_range());
}

MaskedLMOutput DebertaV2ForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                                                 const torch::Tensor& attention_mask) {
  const auto hidden = deberta->forward(input_ids, attention_mask).last_hidden_state;  // (B, T, C)
  return masked_lm_output(
      hidden, labels, [this](const torch::Tensor& rows) { return predictions->forward(rows); },
      "DebertaV2ForMaskedLM");
}

torch::Tensor DebertaV2ForMaskedLMImpl::full_logits(const torch::Tensor& input_ids,
                                                    const torch::Tensor& attention_mask) {
  return predictions->forward(deberta->forward(input_ids, attention_mask).last_hidden_state);  // (B, T, V)
}

void DebertaV2ForMaskedLMImpl::save_pretrained_directory(const std::string& dir) { save_pretrained(*this, dir); }

}  // namespace capaboost
