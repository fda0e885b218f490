#include "models/bert_model.h"

namespace capaboost {
namespace {

// Embeddings and the additive mask, shared by the full and the first-token passes.
std::pair<torch::Tensor, torch::Tensor> embed(BertModelImpl& model, const torch::Tensor& input_ids,
                                              const torch::Tensor& attention_mask,
                                              const torch::Tensor& token_type_ids) {
  auto hidden = model.embeddings->forward(input_ids, token_type_ids);  // (B, T, C)
  torch::Tensor mask;
  if (attention_mask.defined()) {
    TORCH_CHECK(attention_mask.sizes() == input_ids.sizes(), model.options.base_model_prefix(),
                ": attention_mask ", attention_mask.sizes(), " must have the shape of input_ids ", input_ids.sizes());
    mask = additive_attention_mask(attention_mask, hidden.scalar_type());  // (B, 1, 1, T)
  }
  if (token_type_ids.defined()) {
    TORCH_CHECK(token_type_ids.sizes() == input_ids.sizes(), model.options.base_model_prefix(),
                ": token_type_ids ", token_type_ids.sizes(), " must have the shape of input_ids ", input_ids.sizes());
  }
  return {hidden, mask};
}

}  // namespace

BertPoolerImpl::BertPoolerImpl(const BertOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
}

torch::Tensor BertPoolerImpl::forward(const torch::Tensor& hidden) {
  const auto first = hidden.dim() == 3 ? hidden.select(1, 0) : hidden;  // (B, C)
  return torch::tanh(dense->forward(first));
}

BertModelImpl::BertModelImpl(const BertOptions& options_, bool add_pooling_layer) : options(options_) {
  options.validate();
  embeddings = register_module("embeddings", BertEmbeddings(options));
  encoder = register_module("encoder", BertEncoder(options));
  if (add_pooling_layer) pooler = register_module("pooler", BertPooler(options));
  init_transformer_weights(*this, options.initializer_range());
}

BertModelOutput BertModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                       const torch::Tensor& token_type_ids, const BertForwardOptions& outputs) {
  auto [hidden, mask] = embed(*this, input_ids, attention_mask, token_type_ids);
  auto encoded = encoder->forward(hidden, mask, outputs.output_hidden_states(), outputs.output_attentions());
  BertModelOutput out;
  out.last_hidden_state = encoded.last_hidden_state;
  if (pooler) out.pooler_output = pooler->forward(encoded.last_hidden_state);
  out.hidden_states = std::move(encoded.hidden_states);
  out.attentions = std::move(encoded.attentions);
  return out;
}

torch::Tensor BertModelImpl::first_token_state(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                               const torch::Tensor& token_type_ids) {
  auto [hidden, mask] = embed(*this, input_ids, attention_mask, token_type_ids);
  return encoder->forward(hidden, mask, false, false, /*first_token_only=*/true).last_hidden_state.select(1, 0);
}

}  // namespace capaboost
