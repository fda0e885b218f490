#include "models/deberta_v2_layers.h"

#include <algorithm>
#include <cmath>

#include "models/batched_matmul.h"
#include "models/deberta_v2_relative_position.h"
#include "models/bert_layers.h"
#include "runtime/autocast_input.h"

namespace capaboost {
namespace {

ResidualOutputOptions residual_output_options(int64_t in_features, const DebertaV2Options& options) {
  return ResidualOutputOptions(in_features, options.hidden_size())
      .layer_norm_eps(options.layer_norm_eps())
      .dropout(options.hidden_dropout_prob());
}

torch::nn::LayerNorm layer_norm(const DebertaV2Options& options) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps()));
}

}  // namespace

DebertaV2EmbeddingsImpl::DebertaV2EmbeddingsImpl(const DebertaV2Options& options) {
  const int64_t width = options.effective_embedding_size();
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(options.vocab_size(), width).padding_idx(options.pad_token_id())));
  if (options.position_biased_input()) {
    position_embeddings =
        register_module("position_embeddings", torch::nn::Embedding(options.max_position_embeddings(), width));
  }
  if (options.type_vocab_size() > 0) {
    token_type_embeddings =
        register_module("token_type_embeddings", torch::nn::Embedding(options.type_vocab_size(), width));
  }
  if (width != options.hidden_size()) {
    embed_proj = register_module("embed_proj",
                                 TunableLinear(TunableLinearOptions(width, options.hidden_size()).bias(false)));
  }
  layer_norm = register_module("LayerNorm", capaboost::layer_norm(options));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor DebertaV2EmbeddingsImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                                               const torch::Tensor& mask) {
  TORCH_CHECK(input_ids.dim() == 2, "DeBERTa: input_ids must be (batch, tokens), got ", input_ids.sizes());
  const int64_t tokens = input_ids.size(1);
  auto x = word_embeddings->forward(input_ids);  // (B, T, E)
  if (position_embeddings) {
    const int64_t max_positions = position_embeddings->options.num_embeddings();
    TORCH_CHECK(tokens <= max_positions, "DeBERTa: ", tokens, " tokens exceed max_position_embeddings ",
                max_positions, " (truncate the input)");
    x = x + position_embeddings->forward(torch::arange(tokens, torch::dtype(torch::kLong).device(input_ids.device())))
                .unsqueeze(0);
  }
  if (token_type_embeddings) {
    x = x + token_type_embeddings->forward(token_type_ids.defined() ? token_type_ids : torch::zeros_like(input_ids));
  }
  if (embed_proj) x = embed_proj->forward(x);  // (B, T, C)
  x = layer_norm->forward(x);
  // Padding positions enter the encoder as zero vectors, as transformers' embeddings multiply by the mask.
  if (mask.defined()) x = x * mask.unsqueeze(2).to(x.scalar_type());
  return dropout->forward(x);
}

DisentangledSelfAttentionImpl::DisentangledSelfAttentionImpl(const DebertaV2Options& options)
    : AttentionSiteImpl(options.num_attention_heads(), options.hidden_size() / options.num_attention_heads()),
      c2p_(options.relative_attention() && options.has_c2p()),
      p2c_(options.relative_attention() && options.has_p2c()),
      share_att_key_(options.share_att_key()),
      span_(options.position_span()) {
  const int64_t hidden = options.hidden_size();
  query_proj = register_module("query_proj", TunableLinear(hidden, hidden));
  key_proj = register_module("key_proj", TunableLinear(hidden, hidden));
  value_proj = register_module("value_proj", TunableLinear(hidden, hidden));
  if (!share_att_key_ && c2p_) pos_key_proj = register_module("pos_key_proj", TunableLinear(hidden, hidden));
  if (!share_att_key_ && p2c_) pos_query_proj = register_module("pos_query_proj", TunableLinear(hidden, hidden));
  if (options.relative_attention()) pos_dropout = register_module("pos_dropout", ParallelDropout(options.hidden_dropout_prob()));
  dropout = register_module("dropout", ParallelDropout(options.attention_probs_dropout_prob()));
}

torch::Tensor DisentangledSelfAttentionImpl::relative_scores(const torch::Tensor& query, const torch::Tensor& key,
                                                             const RelativeContext& relative, double scale) {
  const int64_t batch = query.size(0), heads = num_heads(), tokens = query.size(2);
  // Embedding rows the gathers below read: c2p reads r + span, p2c reads −r + span (clamped). Projecting
  // only those rows (2T − 1 at most, against 2·span) gives the same scores for a fraction of the work.
  const auto limit = [&](const torch::Tensor& index) { return index.clamp(0, 2 * span_ - 1); };
  const auto c2p_index = limit(relative.positions + span_);  // (T, T)
  const auto p2c_index = limit(-relative.positions + span_);  // (T, T)
  // The rows' range from the positions' range, known on the host: no device read per layer.
  const auto clamp_row = [&](int64_t row) { return std::clamp<int64_t>(row, 0, 2 * span_ - 1); };
  const int64_t low = std::min(clamp_row(relative.lowest + span_), clamp_row(-relative.highest + span_));
  const int64_t high = std::max(clamp_row(relative.highest + span_), clamp_row(-relative.lowest + span_));
  const auto rows = pos_dropout->forward(relative.embeddings.narrow(0, low, high - low + 1)).unsqueeze(0);  // (1, R, C)
  const auto split = [&](const torch::Tensor& x) {  // (1, R, C) → (1, H, R, d)
    return x.view({1, x.size(1), heads, head_size()}).permute({0, 2, 1, 3});
  };
  torch::Tensor score;
  if (c2p_) {
    const auto pos_key = split(share_att_key_ ? key_proj->forward(rows) : pos_key_proj->forward(rows));
    const auto c2p = torch::matmul(query, pos_key.transpose(-1, -2));                             // (B, H, T, R)
    const auto gathered = c2p.gather(3, (c2p_index - low).expand({batch, heads, tokens, tokens}));  // (B, H, T, T)
    score = gathered / scale;
  }
  if (p2c_) {
    const auto pos_query = split(share_att_key_ ? query_proj->forward(rows) : pos_query_proj->forward(rows));
    const auto p2c = torch::matmul(key, pos_query.transpose(-1, -2));  // (B, H, T, R), row j: key j
    // Entry (i, j) is key j against the position of i relative to j.
    const auto gathered = p2c.gather(3, (p2c_index - low).expand({batch, heads, tokens, tokens})).transpose(-1, -2);
    score = score.defined() ? score + gathered / scale : gathered / scale;
  }
  return score;
}

std::pair<torch::Tensor, torch::Tensor> DisentangledSelfAttentionImpl::forward(const torch::Tensor& hidden,
                                                                               const torch::Tensor& key_mask,
                                                                               const torch::Tensor& query_keep,
                                                                               const RelativeContext& relative) {
  const int64_t batch = hidden.size(0), tokens = hidden.size(1), heads = num_heads(), size = head_size();
  const auto split = [&](const torch::Tensor& x) {  // (B, T, C) → (B, H, T, d), a view
    return x.view({batch, tokens, heads, size}).permute({0, 2, 1, 3});
  };
  // Query, key and value read the same input: in a bf16 run it is cast once for all three.
  const auto input = runtime::autocast_input(hidden);    // (B, T, C)
  const auto query = split(query_proj->forward(input));  // (B, H, T, d)
  const auto key = split(key_proj->forward(input));      // (B, H, T, d)
  const KeyValues kv = tune_key_values({key, split(value_proj->forward(input)), key_mask});  // T' ≥ T keys
  // 1/√(d · (1 + terms)), in float32 as transformers computes it.
  const float scale = std::sqrt(static_cast<float>(size) * static_cast<float>(1 + (c2p_ ? 1 : 0) + (p2c_ ? 1 : 0)));
  auto scores = batched_matmul(query, kv.keys.transpose(-1, -2)) / scale;  // (B, H, T, T')
  if (c2p_ || p2c_) {
    auto bias = relative_scores(query, key, relative, scale);  // (B, H, T, T)
    const int64_t added = kv.keys.size(2) - tokens;
    if (added > 0) bias = torch::cat({torch::zeros({batch, heads, tokens, added}, bias.options()), bias}, -1);
    scores = scores + bias;
  }
  if (kv.mask.defined()) scores = scores + kv.mask;
  // XSoftmax: masked keys get probability 0 and padded query rows are all 0.
  auto probs = torch::softmax(scores, -1);
  if (query_keep.defined()) probs = probs * query_keep;
  probs = dropout->forward(probs);
  const auto context = batched_matmul(probs, kv.values);  // (B, H, T, d)
  return {context.permute({0, 2, 1, 3}).reshape({batch, tokens, heads * size}), probs};
}

DebertaV2AttentionImpl::DebertaV2AttentionImpl(const DebertaV2Options& options) {
  self_attention = register_module("self", DisentangledSelfAttention(options));
  output = register_module("output", ResidualOutput(residual_output_options(options.hidden_size(), options)));
}

std::pair<torch::Tensor, torch::Tensor> DebertaV2AttentionImpl::forward(const torch::Tensor& hidden,
                                                                        const torch::Tensor& key_mask,
                                                                        const torch::Tensor& query_keep,
                                                                        const RelativeContext& relative) {
  auto [context, probs] = self_attention->forward(hidden, key_mask, query_keep, relative);
  return {output->forward(context, hidden), probs};
}

DebertaV2LayerImpl::DebertaV2LayerImpl(const DebertaV2Options& options) {
  attention = register_module("attention", DebertaV2Attention(options));
  intermediate = register_module(
      "intermediate", Intermediate(options.hidden_size(), options.intermediate_size(), options.hidden_act()));
  output = register_module("output", ResidualOutput(residual_output_options(options.intermediate_size(), options)));
}

std::pair<torch::Tensor, torch::Tensor> DebertaV2LayerImpl::forward(const torch::Tensor& hidden,
                                                                    const torch::Tensor& key_mask,
                                                                    const torch::Tensor& query_keep,
                                                                    const RelativeContext& relative) {
  auto [attended, probs] = attention->forward(hidden, key_mask, query_keep, relative);
  return {output->forward(intermediate->forward(attended), attended), probs};
}

DebertaV2ConvLayerImpl::DebertaV2ConvLayerImpl(const DebertaV2Options& options) : activation(options.conv_act()) {
  const int64_t hidden = options.hidden_size(), kernel = options.conv_kernel_size();
  conv = register_module("conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(hidden, hidden, kernel)
                                                       .padding((kernel - 1) / 2)
                                                       .groups(options.conv_groups())));
  layer_norm = register_module("LayerNorm", capaboost::layer_norm(options));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor DebertaV2ConvLayerImpl::forward(const torch::Tensor& embeddings, const torch::Tensor& residual,
                                              const torch::Tensor& mask) {
  auto out = conv->forward(embeddings.permute({0, 2, 1})).permute({0, 2, 1});  // (B, T, C)
  const auto keep = mask.unsqueeze(2).to(out.scalar_type());                   // (B, T, 1)
  out = activate(activation, dropout->forward(out * keep));
  return layer_norm->forward(residual + out) * keep;
}

DebertaV2EncoderImpl::DebertaV2EncoderImpl(const DebertaV2Options& options) : options_(options) {
  layer = register_module("layer", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_hidden_layers(); ++i) layer->push_back(DebertaV2Layer(options));
  if (options.relative_attention()) {
    rel_embeddings =
        register_module("rel_embeddings", torch::nn::Embedding(2 * options.position_span(), options.hidden_size()));
    if (options.norm_rel_ebd()) layer_norm = register_module("LayerNorm", capaboost::layer_norm(options));
  }
  if (options.conv_kernel_size() > 0) conv = register_module("conv", DebertaV2ConvLayer(options));
}

DebertaV2EncoderOutput DebertaV2EncoderImpl::forward(const torch::Tensor& hidden, const torch::Tensor& mask,
                                                     bool output_hidden_states, bool output_attentions) {
  const int64_t batch = hidden.size(0), tokens = hidden.size(1);
  const auto key_mask = additive_attention_mask(mask, hidden.scalar_type());                 // (B, 1, 1, T)
  const auto query_keep = mask.to(hidden.scalar_type()).view({batch, 1, tokens, 1});       // (B, 1, T, 1)
  RelativeContext relative;
  if (rel_embeddings) {
    // Bucketed on the CPU on every device (a (T, T) table): the float32 logs that pick the buckets then
    // round the same way wherever the model runs.
    const auto positions = deberta_relative_positions(tokens, tokens, options_.position_buckets(),
                                                      options_.effective_max_relative_positions());
    relative.lowest = positions.min().item<int64_t>();
    relative.highest = positions.max().item<int64_t>();
    relative.positions = positions.to(hidden.device());
    relative.embeddings = layer_norm ? layer_norm->forward(rel_embeddings->weight) : rel_embeddings->weight;
  }
  DebertaV2EncoderOutput out;
  auto h = hidden;
  if (output_hidden_states) out.hidden_states.push_back(h);
  for (size_t i = 0; i < layer->size(); ++i) {
    auto [next, probs] = layer[i]->as<DebertaV2Layer>()->forward(h, key_mask, query_keep, relative);
    h = i == 0 && conv ? conv->forward(hidden, next, mask) : next;
    if (output_hidden_states) out.hidden_states.push_back(h);
    if (output_attentions) out.attentions.push_back(probs);
  }
  out.last_hidden_state = h;
  return out;
}

}  // namespace capaboost
