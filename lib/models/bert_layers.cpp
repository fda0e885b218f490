#include "models/bert_layers.h"

#include <cmath>
#include <limits>
#include <string>

#include "models/batched_matmul.h"
#include "models/fused_attention.h"
#include "models/masked_softmax_dropout.h"
#include "runtime/autocast_input.h"

namespace capaboost {
namespace {

ResidualOutputOptions residual_output_options(int64_t in_features, const BertOptions& options) {
  return ResidualOutputOptions(in_features, options.hidden_size())
      .layer_norm_eps(options.layer_norm_eps())
      .dropout(options.hidden_dropout_prob());
}

}  // namespace

torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, int64_t pad_token_id) {
  // transformers' create_position_ids_from_input_ids: cumsum(mask) * mask + padding_idx.
  auto not_pad = input_ids.ne(pad_token_id).to(torch::kLong);  // (B, T)
  return torch::cumsum(not_pad, /*dim=*/1) * not_pad + pad_token_id;
}

torch::Tensor bert_family_position_ids(const torch::Tensor& input_ids, BertFamily family, int64_t pad_token_id) {
  if (family == BertFamily::kRoberta) return roberta_position_ids(input_ids, pad_token_id);
  // transformers' BertEmbeddings reads its position_ids buffer, arange(max_positions), cut to T.
  const auto positions = torch::arange(input_ids.size(1), input_ids.options().dtype(torch::kLong));  // (T)
  return positions.unsqueeze(0).expand({input_ids.size(0), input_ids.size(1)});                    // (B, T)
}

torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask, torch::ScalarType dtype) {
  TORCH_CHECK(attention_mask.dim() == 2, "attention_mask must be (batch, tokens), got ",
              attention_mask.sizes());
  double lowest = 0;
  AT_DISPATCH_FLOATING_TYPES_AND2(torch::kHalf, torch::kBFloat16, dtype, "additive_attention_mask", [&] {
    lowest = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
  });
  // (1 - mask) · finfo.min, as transformers' get_extended_attention_mask; masked scores stay finite, so
  // even a fully masked row gives a uniform distribution instead of NaN.
  auto keep = attention_mask.to(dtype).unsqueeze(1).unsqueeze(1);  // (B, 1, 1, T)
  return (1.0 - keep) * lowest;
}

torch::Tensor relative_position_scores(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& distance_embedding, PositionEmbeddingType type) {
  TORCH_CHECK(type != PositionEmbeddingType::kAbsolute, "relative_position_scores: absolute positions have none");
  const int64_t queries = q.size(2), keys = k.size(2);
  const int64_t max_positions = (distance_embedding.size(0) + 1) / 2;
  TORCH_CHECK(keys <= max_positions, "relative positions: ", keys, " tokens need relative distances up to ", keys - 1,
              " but max_position_embeddings is ", max_positions, " (truncate to at most ", max_positions,
              " tokens)");
  const auto index_options = torch::TensorOptions().dtype(torch::kLong).device(q.device());
  const auto distance = torch::arange(queries, index_options).view({-1, 1}) -
                        torch::arange(keys, index_options).view({1, -1});           // (Tq, T): l − r
  const auto embedded = distance_embedding.index({distance + (max_positions - 1)})  // (Tq, T, d)
                            .to(q.scalar_type());
  auto scores = torch::einsum("bhld,lrd->bhlr", {q, embedded});  // (B, H, Tq, T)
  if (type == PositionEmbeddingType::kRelativeKeyQuery)
    scores = scores + torch::einsum("bhrd,lrd->bhlr", {k, embedded});
  return scores;
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertOptions& options)
    : family(options.family()),
      pad_token_id(options.pad_token_id()),
      position_embedding_type(options.position_embedding_type()) {
  const int64_t hidden = options.hidden_size();
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(
          torch::nn::EmbeddingOptions(options.vocab_size(), hidden).padding_idx(pad_token_id)));
  auto position_options = torch::nn::EmbeddingOptions(options.max_position_embeddings(), hidden);
  if (family == BertFamily::kRoberta) position_options.padding_idx(pad_token_id);
  position_embeddings = register_module("position_embeddings", torch::nn::Embedding(position_options));
  token_type_embeddings =
      register_module("token_type_embeddings", torch::nn::Embedding(options.type_vocab_size(), hidden));
  layer_norm = register_module(
      "LayerNorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(options.layer_norm_eps())));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor& input_ids,
                                             const torch::Tensor& token_type_ids) {
  TORCH_CHECK(input_ids.dim() == 2, to_string(family), ": input_ids must be (batch, tokens), got ", input_ids.sizes());
  auto types = token_type_embeddings->forward(token_type_ids.defined() ? token_type_ids
                                                                       : torch::zeros_like(input_ids));
  auto x = word_embeddings->forward(input_ids) + types;  // (B, T, C)
  if (position_embedding_type == PositionEmbeddingType::kAbsolute) {
    const auto positions = bert_family_position_ids(input_ids, family, pad_token_id);  // (B, T)
    const int64_t max_positions = position_embeddings->options.num_embeddings();
    // RoBERTa's position ids never exceed pad + T, BERT's T − 1: only inputs that long need the
    // (device-synchronising) check.
    const int64_t offset = family == BertFamily::kRoberta ? pad_token_id + 1 : 0;
    const bool may_overflow = offset + input_ids.size(1) > max_positions;
    const int64_t highest = may_overflow && input_ids.numel() > 0 ? positions.max().item<int64_t>() : 0;
    TORCH_CHECK(highest < max_positions, to_string(family), ": ", input_ids.size(1),
                " tokens need position ids up to ", highest, " but max_position_embeddings is ", max_positions,
                " (truncate to at most ", max_positions - offset, " tokens)");
    x = x + position_embeddings->forward(positions);
  }
  return dropout->forward(layer_norm->forward(x));
}

BertSelfAttentionImpl::BertSelfAttentionImpl(const BertOptions& options)
    : AttentionSiteImpl(options.num_attention_heads(), options.hidden_size() / options.num_attention_heads()),
      position_embedding_type(options.position_embedding_type()) {
  const int64_t hidden = options.hidden_size();
  query = register_module("query", TunableLinear(hidden, hidden));
  key = register_module("key", TunableLinear(hidden, hidden));
  value = register_module("value", TunableLinear(hidden, hidden));
  dropout = register_module("dropout", ParallelDropout(options.attention_probs_dropout_prob()));
  if (position_embedding_type != PositionEmbeddingType::kAbsolute) {
    distance_embedding = register_module(
        "distance_embedding", torch::nn::Embedding(2 * options.max_position_embeddings() - 1, head_size()));
  }
}

std::pair<torch::Tensor, torch::Tensor> BertSelfAttentionImpl::forward(const torch::Tensor& hidden,
                                                                          const torch::Tensor& mask,
                                                                          bool first_token_only,
                                                                          bool return_probabilities) {
  const int64_t batch = hidden.size(0), tokens = hidden.size(1);
  const int64_t num_heads = this->num_heads(), head_size = this->head_size();
  // Query, key and value read the same input: in a bf16 run it is cast once for all three.
  const auto input = runtime::autocast_input(hidden);                         // (B, T, C)
  const auto query_input = first_token_only ? input.narrow(1, 0, 1) : input;  // (B, Tq, C)
  const int64_t queries = query_input.size(1);
  // (B, T, C) → (B, H, T, d) as views: batched_matmul reads the heads in place, no contiguous copies.
  const auto heads = [&](const torch::Tensor& x, int64_t length) {
    return x.view({batch, length, num_heads, head_size}).permute({0, 2, 1, 3});
  };
  auto q = heads(query->forward(query_input), queries);  // (B, H, Tq, d)
  const auto k = heads(key->forward(input), tokens);      // (B, H, T, d)
  // A key-value tuner (prefix tuning) may add key positions: T' = T + its length, mask extended to match.
  const KeyValues kv = tune_key_values({k,                                      // (B, H, T', d)
                                        heads(value->forward(input), tokens),   // (B, H, T', d)
                                        mask});                                 // (B, 1, 1, T') or undefined
  // The 1/√d scale rides on the GEMM (alpha), as (q kᵀ)/√d in transformers.
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_size));
  if (distance_embedding.is_empty() && !return_probabilities &&
      fused_attention_applies(q, kv.keys, kv.values, kv.mask)) {
    // Scores, probabilities and context per head in cache; the context comes back in (B, Tq, H, d)
    // memory, so the reshape below is a view. Same dropout masks as the unfused path below.
    const auto drop = draw_attention_dropout(*dropout);
    const auto context = fused_attention(q, kv.keys, kv.values, kv.mask, scale, drop.p, drop.seed);  // (B, H, Tq, d)
    return {context.permute({0, 2, 1, 3}).reshape({batch, queries, num_heads * head_size}), torch::Tensor()};
  }
  auto scores = batched_matmul(q, kv.keys.transpose(-1, -2), scale);  // (B, H, Tq, T')
  if (!distance_embedding.is_empty()) {
    // transformers scales (q kᵀ + relative)/√d; the sum is the same. A tuner prepends its positions, so
    // the tokens' relative term goes into the last T key columns and the added positions get none.
    auto relative = relative_position_scores(q, k, distance_embedding->weight, position_embedding_type) * scale;
    const int64_t added = kv.keys.size(2) - tokens;
    if (added > 0) relative = torch::constant_pad_nd(relative, {added, 0});
    scores = scores + relative;
  }
  auto probs = attention_probabilities(scores, kv.mask, *dropout);  // (B, H, Tq, T')
  auto context = batched_matmul(probs, kv.values);  // (B, H, Tq, d)
  return {context.permute({0, 2, 1, 3}).reshape({batch, queries, num_heads * head_size}),
          probs};  // (B, Tq, C)
}

BertAttentionImpl::BertAttentionImpl(const BertOptions& options) {
  self_attention = register_module("self", BertSelfAttention(options));
  output = register_module("output", ResidualOutput(residual_output_options(options.hidden_size(), options)));
}

std::pair<torch::Tensor, torch::Tensor> BertAttentionImpl::forward(const torch::Tensor& hidden,
                                                                      const torch::Tensor& mask,
                                                                      bool first_token_only,
                                                                      bool return_probabilities) {
  auto [context, probs] = self_attention->forward(hidden, mask, first_token_only, return_probabilities);
  const auto residual = first_token_only ? hidden.narrow(1, 0, 1) : hidden;
  return {output->forward(context, residual), probs};
}

BertLayerImpl::BertLayerImpl(const BertOptions& options) {
  attention = register_module("attention", BertAttention(options));
  intermediate = register_module(
      "intermediate", Intermediate(options.hidden_size(), options.intermediate_size(), options.hidden_act()));
  output = register_module("output", ResidualOutput(residual_output_options(options.intermediate_size(), options)));
}

std::pair<torch::Tensor, torch::Tensor> BertLayerImpl::forward(const torch::Tensor& hidden,
                                                                  const torch::Tensor& mask,
                                                                  bool first_token_only,
                                                                  bool return_probabilities) {
  auto [attended, probs] = attention->forward(hidden, mask, first_token_only, return_probabilities);  // (B, Tq, C)
  return {output->forward(intermediate->forward(attended), attended), probs};
}

BertEncoderImpl::BertEncoderImpl(const BertOptions& options) {
  layer = register_module("layer", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_hidden_layers(); ++i) layer->push_back(BertLayer(options));
}

BertEncoderOutput BertEncoderImpl::forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                                                 bool output_hidden_states, bool output_attentions,
                                                 bool first_token_only) {
  TORCH_CHECK(!(first_token_only && (output_hidden_states || output_attentions)),
              "BertEncoder: first-token mode computes only position 0 in the last layer; it cannot "
              "return hidden states or attentions");
  BertEncoderOutput out;
  auto h = hidden;
  if (output_hidden_states) out.hidden_states.push_back(h);
  const int64_t count = static_cast<int64_t>(layer->size());
  for (int64_t i = 0; i < count; ++i) {
    auto [next, probs] =
        layer[i]->as<BertLayer>()->forward(h, mask, first_token_only && i == count - 1, output_attentions);
    h = next;
    if (output_hidden_states) out.hidden_states.push_back(h);
    if (output_attentions) out.attentions.push_back(probs);
  }
  out.last_hidden_state = h;
  return out;
}

}  // namespace capaboost
