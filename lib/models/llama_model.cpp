#include "models/llama_model.h"

#include "models/transformer_blocks.h"

namespace capaboost {

int64_t LlamaCache::length() const {
  return layers.empty() || !layers.front().keys.defined() ? 0 : layers.front().keys.size(2);
}

LlamaModelImpl::LlamaModelImpl(const LlamaOptions& options) : options(options) {
  options.validate();
  auto embedding = torch::nn::EmbeddingOptions(options.vocab_size(), options.hidden_size());
  if (options.pad_token_id()) embedding.padding_idx(*options.pad_token_id());
  embed_tokens = register_module("embed_tokens", torch::nn::Embedding(embedding));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_hidden_layers(); ++i) layers->push_back(LlamaDecoderLayer(options));
  norm = register_module("norm", RMSNorm(RMSNormOptions(options.hidden_size()).eps(options.rms_norm_eps())));
  // transformers' LlamaPreTrainedModel._init_weights draws as the BERT family's do (linear and embedding
  // weights N(0, range²), biases 0, the padding row 0); RMSNorm scales keep their ones.
  init_transformer_weights(*this, options.initializer_range());
}

LlamaModelOutput LlamaModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                         const torch::Tensor& position_ids, LlamaCache* cache,
                                         bool output_hidden_states) {
  TORCH_CHECK(input_ids.dim() == 2, "LlamaModel: input_ids must be (B, T), got ", input_ids.sizes());
  const int64_t batch = input_ids.size(0), length = input_ids.size(1);
  TORCH_CHECK(length > 0, "LlamaModel: input_ids has no tokens");
  if (cache != nullptr && cache->layers.empty()) cache->layers.resize(layers->size());
  TORCH_CHECK(cache == nullptr || static_cast<int64_t>(cache->layers.size()) == options.num_hidden_layers(),
              "LlamaModel: the cache holds ", cache == nullptr ? 0 : cache->layers.size(), " layers, the model has ",
              options.num_hidden_layers());
  const int64_t cached = cache == nullptr ? 0 : cache->length();
  const int64_t total = cached + length;

  torch::Tensor positions = position_ids;
  if (!positions.defined()) {
    positions = attention_mask.defined()
                    ? (attention_mask.to(input_ids.device()).cumsum(-1) - 1).clamp_min(0).narrow(1, cached, length)
                    : torch::arange(cached, total, input_ids.options().dtype(torch::kLong)).unsqueeze(0).expand(
                          {batch, length});
  }
  TORCH_CHECK(positions.sizes() == input_ids.sizes(), "LlamaModel: position_ids ", positions.sizes(),
              " differ in shape from input_ids ", input_ids.sizes());

  auto hidden = embed_tokens(input_ids);  // (B, T, C)
  const auto rotary = rotary_tables(positions, options.head_size(), options.rope_theta(), hidden.scalar_type());
  const auto mask = causal_attention_mask(attention_mask, batch, length, total, hidden.scalar_type(), hidden.device());
  LlamaModelOutput output;
  for (size_t i = 0; i < layers->size(); ++i) {
    if (output_hidden_states) output.hidden_states.push_back(hidden);
    hidden = layers[i]->as<LlamaDecoderLayerImpl>()->forward(hidden, rotary, mask,
                                                             cache == nullptr ? nullptr : &cache->layers[i]);
  }
  hidden = norm(hidden);
  if (output_hidden_states) output.hidden_states.push_back(hidden);
  output.last_hidden_state = hidden;
  return output;
}

}  // namespace capaboost
