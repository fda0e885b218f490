#include "models/llama_layers.h"

#include <cmath>
#include <limits>


namespace capaboost {

LlamaAttentionImpl::LlamaAttentionImpl(const LlamaOptions& options)
    // The site's heads are the key-value heads: a key-value tuner sees (and extends) the keys as cached.
    : AttentionSiteImpl(options.num_key_value_heads(), options.head_size()),
      num_query_heads(options.num_attention_heads()),
      num_key_value_heads(options.num_key_value_heads()),
      attention_dropout(options.attention_dropout()) {
  const int64_t d = options.head_size();
  const auto linear = [&](int64_t in, int64_t out) {
    return TunableLinear(TunableLinearOptions(in, out).bias(options.attention_bias()));
  };
  q_proj = register_module("q_proj", linear(options.hidden_size(), num_query_heads * d));
  k_proj = register_module("k_proj", linear(options.hidden_size(), num_key_value_heads * d));
  v_proj = register_module("v_proj", linear(options.hidden_size(), num_key_value_heads * d));
  o_proj = register_module("o_proj", linear(num_query_heads * d, options.hidden_size()));
}

torch::Tensor LlamaAttentionImpl::forward(const torch::Tensor& hidden, const RotaryTables& rotary,
                                          const torch::Tensor& mask, LlamaLayerCache* cache) {
  TORCH_CHECK(hidden.dim() == 3, "LlamaAttention: hidden must be (B, T, C), got ", hidden.sizes());
  const int64_t batch = hidden.size(0), length = hidden.size(1), d = head_size();
  const int64_t groups = num_query_heads / num_key_value_heads;
  const auto heads = [&](const torch::Tensor& projected, int64_t count) {
    return projected.view({batch, length, count, d}).transpose(1, 2);  // (B, count, T, d)
  };
  auto q = apply_rotary(heads(q_proj(hidden), num_query_heads), rotary);      // (B, H, T, d)
  auto k = apply_rotary(heads(k_proj(hidden), num_key_value_heads), rotary);  // (B, Hkv, T, d)
  auto v = heads(v_proj(hidden), num_key_value_heads);                        // (B, Hkv, T, d)
  if (cache != nullptr) {
    if (cache->keys.defined()) {
      k = torch::cat({cache->keys, k}, 2);
      v = torch::cat({cache->values, v}, 2);
    }
    cache->keys = k;
    cache->values = v;
  }
  auto state = tune_key_values({k, v, mask});  // keys (B, Hkv, S', d); mask (B, 1, T, S')
  const int64_t keys = state.keys.size(2);
  TORCH_CHECK(!state.mask.defined() || state.mask.size(-1) == keys, "LlamaAttention: the mask covers ",
              state.mask.size(-1), " key positions, the keys ", keys);

  // transformers' arrangement: each key-value head repeated for its `groups` query heads (repeat_kv).
  const auto repeat = [&](const torch::Tensor& x) {
    return x.unsqueeze(2).expand({batch, num_key_value_heads, groups, keys, d}).reshape({batch, num_query_heads, keys, d});
  };
  auto scores = torch::matmul(q, repeat(state.keys).transpose(2, 3)) / std::sqrt(static_cast<double>(d));
  if (state.mask.defined()) scores = scores + state.mask;
  auto probabilities = torch::softmax(scores, -1, torch::kFloat).to(q.scalar_type());
  if (attention_dropout > 0.0 && is_training()) probabilities = torch::dropout(probabilities, attention_dropout, true);
  const auto merged = torch::matmul(probabilities, repeat(state.values)).transpose(1, 2).contiguous().reshape(
      {batch, length, num_query_heads * d});
  return o_proj(merged);
}

LlamaMlpImpl::LlamaMlpImpl(const LlamaOptions& options) {
  const auto linear = [&](int64_t in, int64_t out) {
    return TunableLinear(TunableLinearOptions(in, out).bias(options.mlp_bias()));
  };
  gate_proj = register_module("gate_proj", linear(options.hidden_size(), options.intermediate_size()));
  up_proj = register_module("up_proj", linear(options.hidden_size(), options.intermediate_size()));
  down_proj = register_module("down_proj", linear(options.intermediate_size(), options.hidden_size()));
}

torch::Tensor LlamaMlpImpl::forward(const torch::Tensor& x) {
  return down_proj(torch::silu(gate_proj(x)) * up_proj(x));
}

LlamaDecoderLayerImpl::LlamaDecoderLayerImpl(const LlamaOptions& options) {
  self_attn = register_module("self_attn", LlamaAttention(options));
  mlp = register_module("mlp", LlamaMlp(options));
  input_layernorm =
      register_module("input_layernorm", RMSNorm(RMSNormOptions(options.hidden_size()).eps(options.rms_norm_eps())));
  post_attention_layernorm = register_module(
      "post_attention_layernorm", RMSNorm(RMSNormOptions(options.hidden_size()).eps(options.rms_norm_eps())));
}

torch::Tensor LlamaDecoderLayerImpl::forward(const torch::Tensor& hidden, const RotaryTables& rotary,
                                             const torch::Tensor& mask, LlamaLayerCache* cache) {
  const auto attended = hidden + self_attn(input_layernorm(hidden), rotary, mask, cache);
  return attended + mlp(post_attention_layernorm(attended));
}

torch::Tensor causal_attention_mask(const torch::Tensor& attention_mask, int64_t batch, int64_t new_tokens,
                                    int64_t total_positions, torch::ScalarType dtype, torch::Device device) {
  TORCH_CHECK(new_tokens > 0 && total_positions >= new_tokens, "causal_attention_mask: ", new_tokens,
              " new tokens among ", total_positions, " positions");
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(device);
  const auto query_positions = torch::arange(total_positions - new_tokens, total_positions, long_options);
  const auto key_positions = torch::arange(total_positions, long_options);
  auto allowed = key_positions.unsqueeze(0) <= query_positions.unsqueeze(1);  // (T, S)
  allowed = allowed.unsqueeze(0).unsqueeze(0).expand({batch, 1, new_tokens, total_positions});
  if (attention_mask.defined()) {
    TORCH_CHECK(attention_mask.dim() == 2 && attention_mask.size(0) == batch &&
                    attention_mask.size(1) == total_positions,
                "causal_attention_mask: attention_mask must be (B, S) = (", batch, ", ", total_positions, "), got ",
                attention_mask.sizes());
    allowed = allowed & attention_mask.to(device).ne(0).view({batch, 1, 1, total_positions});
  }
  double lowest = 0;
  AT_DISPATCH_FLOATING_TYPES_AND2(torch::kHalf, torch::kBFloat16, dtype, "causal_attention_mask", [&] {
    lowest = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
  });
  return torch::zeros({batch, 1, new_tokens, total_positions}, torch::TensorOptions().dtype(dtype).device(device))
      .masked_fill(allowed.logical_not(), lowest);
}

}  // namespace capaboost
