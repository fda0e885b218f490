#pragma once
// The Llama family's hyper-parameters (transformers' LlamaConfig) and their `config.json` form: the
// decoder language models the suite fine-tunes (SmolLM2-135M from its GGUF file, random shapes for the
// parity tests and probes).
//
//   LlamaOptions options = load_llama_config(dir + "/config.json");
//   options.head_dim();   // 64 for SmolLM2-135M (576 wide, 9 query heads, 3 key-value heads)

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "models/classification_loss.h"

namespace capaboost {

/// Field names and meanings are transformers' LlamaConfig; the defaults are SmolLM2-135M's.
struct LlamaOptions {
  TORCH_ARG(int64_t, vocab_size) = 49152;
  TORCH_ARG(int64_t, hidden_size) = 576;
  TORCH_ARG(int64_t, intermediate_size) = 1536;
  TORCH_ARG(int64_t, num_hidden_layers) = 30;
  TORCH_ARG(int64_t, num_attention_heads) = 9;
  /// Grouped-query attention: each key-value head serves num_attention_heads / num_key_value_heads
  /// query heads.
  TORCH_ARG(int64_t, num_key_value_heads) = 3;
  /// Width of one head; 0 means hidden_size / num_attention_heads (transformers' default).
  TORCH_ARG(int64_t, head_dim) = 0;
  TORCH_ARG(int64_t, max_position_embeddings) = 8192;
  TORCH_ARG(double, rms_norm_eps) = 1e-5;
  TORCH_ARG(double, rope_theta) = 100000.0;
  TORCH_ARG(double, initializer_range) = 0.02;
  TORCH_ARG(double, attention_dropout) = 0.0;
  TORCH_ARG(bool, attention_bias) = false;
  TORCH_ARG(bool, mlp_bias) = false;
  /// The output projection reads the token embedding (no `lm_head` of its own).
  TORCH_ARG(bool, tie_word_embeddings) = true;
  TORCH_ARG(std::optional<int64_t>, pad_token_id) = 2;
  TORCH_ARG(int64_t, bos_token_id) = 1;
  TORCH_ARG(int64_t, eos_token_id) = 2;
  /// Outputs of the sequence-classification head; 1 means regression.
  TORCH_ARG(int64_t, num_labels) = 2;
  /// id2label names; empty means "LABEL_<i>".
  TORCH_ARG(std::vector<std::string>, label_names) = {};
  /// Unset: inferred from num_labels and the labels' dtype when the loss is computed (as transformers).
  TORCH_ARG(std::optional<ProblemType>, problem_type) = std::nullopt;

 public:
  /// head_dim, or hidden_size / num_attention_heads when it is 0.
  int64_t head_size() const { return head_dim() > 0 ? head_dim() : hidden_size() / num_attention_heads(); }
  /// Query heads per key-value head.
  int64_t query_groups() const { return num_attention_heads() / num_key_value_heads(); }
  /// Throws, naming `source` and the field, on values no model can be built from.
  void validate(const std::string& source = "LlamaOptions") const;
};

/// Reads a Hugging Face Llama config.json (model_type "llama"). Every field falls back to transformers'
/// LlamaConfig default when absent (not to SmolLM2's); `num_key_value_heads` to num_attention_heads.
/// Throws, naming the file and the field, on a wrong type, another model_type, an activation other than
/// SiLU or a rope_scaling (not supported: the suite's models use plain RoPE).
LlamaOptions load_llama_config(const std::string& path);

/// The config.json content transformers writes for these options (keys sorted); `architecture` goes
/// into "architectures" (e.g. "LlamaForCausalLM").
nlohmann::json llama_config_json(const LlamaOptions& options, const std::string& architecture);

}  // namespace capaboost
