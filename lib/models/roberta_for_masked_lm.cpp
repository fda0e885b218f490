#include "models/roberta_for_masked_lm.h"

#include "models/roberta_pretrained.h"

namespace capaboost {

RobertaLMHeadImpl::RobertaLMHeadImpl(const BertOptions& options, torch::nn::Embedding word_embeddings)
    : word_embeddings_(std::move(word_embeddings)) {
  TORCH_CHECK(word_embeddings_ && word_embeddings_->weight.size(0) == options.vocab_size() &&
                  word_embeddings_->weight.size(1) == options.hidden_size(),
              "RobertaLMHead: the tied word embeddings must be (vocab_size, hidden_size) = (",
              options.vocab_size(), ", ", options.hidden_size(), ")");
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  layer_norm = register_module(
      "layer_norm", torch::nn::LayerNorm(
                        torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps())));
  bias = register_parameter("bias", torch::zeros({options.vocab_size()}));
}

torch::Tensor RobertaLMHeadImpl::forward(const torch::Tensor& features) {
  // transformers' RobertaLMHead always uses the exact (erf) GELU here, whatever config.hidden_act says.
  auto x = layer_norm->forward(torch::gelu(dense->forward(features)));      // (…, C)
  return torch::nn::functional::linear(x, word_embeddings_->weight, bias);  // (…, V)
}

RobertaForMaskedLMImpl::RobertaForMaskedLMImpl(const BertOptions& options_) : options(options_) {
  roberta = register_module("roberta", BertModel(options, /*add_pooling_layer=*/false));
  lm_head = register_module("lm_head", RobertaLMHead(options, roberta->embeddings->word_embeddings));
  // The encoder initialised itself; the head's dense and layer_norm get the same recipe, bias stays 0.
  init_transformer_weights(*lm_head, options.initializer_range());
}

MaskedLMOutput RobertaForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                                               const torch::Tensor& attention_mask) {
  const auto hidden = roberta->forward(input_ids, attention_mask).last_hidden_state;  // (B, T, C)
  return masked_lm_output(
      hidden, labels, [this](const torch::Tensor& rows) { return lm_head->forward(rows); }, "RobertaForMaskedLM");
}

torch::Tensor RobertaForMaskedLMImpl::full_logits(const torch::Tensor& input_ids,
                                                  const torch::Tensor& attention_mask) {
  return lm_head->forward(roberta->forward(input_ids, attention_mask).last_hidden_state);  // (B, T, V)
}

void RobertaForMaskedLMImpl::save_pretrained_directory(const std::string& dir) { save_pretrained(*this, dir); }

}  // namespace capaboost
