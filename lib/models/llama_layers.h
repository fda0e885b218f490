#pragma once
// The blocks of the Llama family, module for module and name for name as transformers'
// modeling_llama.py (4.47), so every parameter's dotted name equals its Hugging Face state-dict name:
// pre-norm decoder layers of grouped-query self-attention with rotary positions and a SwiGLU
// feed-forward block, RMSNorm before each. The seven projections (q_proj k_proj v_proj o_proj gate_proj
// up_proj down_proj) are TunableLinear sites, so every method attaches by those names; the attention is
// an attention site over the key-value heads, so prefix tuning extends its keys and values.

#include <torch/torch.h>

#include <vector>

#include "models/llama_config.h"
#include "models/rms_norm.h"
#include "models/rotary_embedding.h"
#include "sites/attention_site.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// One layer's keys and values of the positions seen so far, after RoPE and before any key-value tuner
/// (a tuner's prefix is added anew at every step, never cached). Undefined until the first forward.
struct LlamaLayerCache {
  torch::Tensor keys;    // (B, Hkv, S, d)
  torch::Tensor values;  // (B, Hkv, S, d)
};

/// Grouped-query causal self-attention. Query head h reads key-value head h / (H / Hkv), with the keys and
/// values repeated per query head as transformers' repeat_kv does: the same products in the same shapes,
/// so the sums round as transformers' do (stacking a group's query heads into one product against
/// shared keys, tried first, moved SmolLM2's logits by 7.7e-5 against transformers' 0 at equal threads,
/// for a copy of k and v that costs little beside the projections).
class LlamaAttentionImpl : public AttentionSiteImpl {
 public:
  explicit LlamaAttentionImpl(const LlamaOptions& options);
  /// hidden: (B, T, C); rotary: tables of the T new positions; mask: additive (B, 1, T, S) over the S key
  /// positions (cached + new), 0 to attend, the dtype's lowest value to skip. With `cache`, its keys and
  /// values are extended by the T new ones and the new tokens attend over all S. → (B, T, C).
  torch::Tensor forward(const torch::Tensor& hidden, const RotaryTables& rotary, const torch::Tensor& mask,
                        LlamaLayerCache* cache = nullptr);

  int64_t num_query_heads;
  int64_t num_key_value_heads;
  double attention_dropout;
  TunableLinear q_proj{nullptr};
  TunableLinear k_proj{nullptr};
  TunableLinear v_proj{nullptr};
  TunableLinear o_proj{nullptr};
};
TORCH_MODULE(LlamaAttention);

/// down_proj(silu(gate_proj(x)) · up_proj(x)).
class LlamaMlpImpl : public torch::nn::Module {
 public:
  explicit LlamaMlpImpl(const LlamaOptions& options);
  /// x: (B, T, C) → (B, T, C).
  torch::Tensor forward(const torch::Tensor& x);

  TunableLinear gate_proj{nullptr};
  TunableLinear up_proj{nullptr};
  TunableLinear down_proj{nullptr};
};
TORCH_MODULE(LlamaMlp);

/// h = x + self_attn(input_layernorm(x)); out = h + mlp(post_attention_layernorm(h)).
class LlamaDecoderLayerImpl : public torch::nn::Module {
 public:
  explicit LlamaDecoderLayerImpl(const LlamaOptions& options);
  /// hidden: (B, T, C) → (B, T, C); rotary, mask and cache as LlamaAttention.
  torch::Tensor forward(const torch::Tensor& hidden, const RotaryTables& rotary, const torch::Tensor& mask,
                        LlamaLayerCache* cache = nullptr);

  LlamaAttention self_attn{nullptr};
  LlamaMlp mlp{nullptr};
  RMSNorm input_layernorm{nullptr};
  RMSNorm post_attention_layernorm{nullptr};
};
TORCH_MODULE(LlamaDecoderLayer);

/// The additive mask of causal attention with padding, as transformers' _update_causal_mask builds it
/// for eager attention: the T new tokens sit at key positions S − T … S − 1; query i may read key j when
/// j ≤ S − T + i and attention_mask[:, j] is 1. 0 there, the dtype's lowest finite value elsewhere (a
/// query on a padding position reads nothing real and gets a finite, meaningless result, as there).
/// attention_mask: (B, S) int64, or undefined for all ones (then `batch` gives B) → (B, 1, T, S).
torch::Tensor causal_attention_mask(const torch::Tensor& attention_mask, int64_t batch, int64_t new_tokens,
                                    int64_t total_positions, torch::ScalarType dtype, torch::Device device);

}  // namespace capaboost
