#include "models/llama_gguf.h"

#include <regex>

#include "models/llama_pretrained.h"

namespace capaboost {
namespace {

/// GGUF's per-block tensor names and transformers' (within "model.layers.<i>.").
const std::map<std::string, std::string>& block_tensor_names() {
  static const std::map<std::string, std::string> names{
      {"attn_norm", "input_layernorm"},   {"ffn_norm", "post_attention_layernorm"},
      {"attn_q", "self_attn.q_proj"},     {"attn_k", "self_attn.k_proj"},
      {"attn_v", "self_attn.v_proj"},     {"attn_output", "self_attn.o_proj"},
      {"ffn_gate", "mlp.gate_proj"},      {"ffn_up", "mlp.up_proj"},
      {"ffn_down", "mlp.down_proj"},
  };
  return names;
}

std::string gguf_source(const GgufFile& file) { return "GGUF file '" + file.path() + "'"; }

}  // namespace

LlamaOptions llama_options_from_gguf(const GgufFile& file) {
  const auto source = gguf_source(file);
  const auto architecture = file.string("general.architecture");
  TORCH_CHECK(architecture == "llama", source, ": general.architecture is '", architecture,
              "'; only the Llama family (\"llama\") is supported");
  for (const auto& key : {"llama.rope.scaling.type", "llama.rope.scaling.factor"}) {
    TORCH_CHECK(!file.has(key), source, ": ", key, " is set; only plain rotary embeddings are supported");
  }
  LlamaOptions options;
  options.num_hidden_layers(file.integer("llama.block_count"))
      .hidden_size(file.integer("llama.embedding_length"))
      .intermediate_size(file.integer("llama.feed_forward_length"))
      .num_attention_heads(file.integer("llama.attention.head_count"))
      .max_position_embeddings(file.integer("llama.context_length"))
      .rms_norm_eps(file.real("llama.attention.layer_norm_rms_epsilon"))
      .rope_theta(file.has("llama.rope.freq_base") ? file.real("llama.rope.freq_base") : 10000.0)
      .tie_word_embeddings(!file.has_tensor("output.weight"));
  options.num_key_value_heads(file.has("llama.attention.head_count_kv") ? file.integer("llama.attention.head_count_kv")
                                                                         : options.num_attention_heads());
  options.vocab_size(static_cast<int64_t>(file.strings("tokenizer.ggml.tokens").size()));
  if (file.has("llama.vocab_size")) {
    TORCH_CHECK(file.integer("llama.vocab_size") == options.vocab_size(), source, ": llama.vocab_size ",
                file.integer("llama.vocab_size"), " differs from the ", options.vocab_size(), " tokens of tokenizer.ggml.tokens");
  }
  if (file.has("tokenizer.ggml.bos_token_id")) options.bos_token_id(file.integer("tokenizer.ggml.bos_token_id"));
  if (file.has("tokenizer.ggml.eos_token_id")) options.eos_token_id(file.integer("tokenizer.ggml.eos_token_id"));
  options.pad_token_id(file.has("tokenizer.ggml.padding_token_id")
                           ? std::optional<int64_t>(file.integer("tokenizer.ggml.padding_token_id"))
                           : std::nullopt);
  options.validate(source);
  if (file.has("llama.rope.dimension_count")) {
    TORCH_CHECK(file.integer("llama.rope.dimension_count") == options.head_size(), source,
                ": llama.rope.dimension_count ", file.integer("llama.rope.dimension_count"),
                " differs from the head width ", options.head_size(), "; partial rotary embeddings are not supported");
  }
  return options;
}

LlamaBpeVocabulary llama_vocabulary_from_gguf(const GgufFile& file, GgufTokenizerConvention convention) {
  const auto source = gguf_source(file);
  const auto model = file.string("tokenizer.ggml.model");
  TORCH_CHECK(model == "gpt2", source, ": tokenizer.ggml.model is '", model,
              "'; only byte-level BPE (\"gpt2\") is supported");
  LlamaBpeVocabulary vocabulary;
  vocabulary.tokens = file.strings("tokenizer.ggml.tokens");
  vocabulary.merges = file.strings("tokenizer.ggml.merges");
  for (const auto type : file.integers("tokenizer.ggml.token_type")) vocabulary.token_types.push_back(static_cast<int32_t>(type));
  const auto optional_id = [&](const char* key) {
    return file.has(key) ? std::optional<int64_t>(file.integer(key)) : std::nullopt;
  };
  vocabulary.bos_id = optional_id("tokenizer.ggml.bos_token_id");
  vocabulary.eos_id = optional_id("tokenizer.ggml.eos_token_id");
  vocabulary.unk_id = optional_id("tokenizer.ggml.unknown_token_id");
  vocabulary.pad_id = optional_id("tokenizer.ggml.padding_token_id");
  if (convention == GgufTokenizerConvention::kTransformersGguf) {
    vocabulary.add_bos = true;
    vocabulary.add_eos = false;
    vocabulary.pretokenizer = LlamaPretokenizer::kGpt2;
    return vocabulary;
  }
  vocabulary.add_bos = file.has("tokenizer.ggml.add_bos_token") && file.boolean("tokenizer.ggml.add_bos_token");
  vocabulary.add_eos = file.has("tokenizer.ggml.add_eos_token") && file.boolean("tokenizer.ggml.add_eos_token");
  const auto pre = file.has("tokenizer.ggml.pre") ? file.string("tokenizer.ggml.pre") : std::string("default");
  if (pre == "smollm") {
    vocabulary.pretokenizer = LlamaPretokenizer::kGpt2IsolatedNumbers;
  } else if (pre == "gpt-2" || pre == "gpt2" || pre == "default") {
    vocabulary.pretokenizer = LlamaPretokenizer::kGpt2;
  } else {
    TORCH_CHECK(false, source, ": tokenizer.ggml.pre is '", pre,
                "'; the suite knows the pre-tokenizers 'smollm' and 'gpt-2' (use GgufTokenizerConvention::"
                "kTransformersGguf to tokenize as transformers does, with GPT-2's)");
  }
  return vocabulary;
}

std::optional<std::string> llama_tensor_name(const std::string& gguf_name) {
  if (gguf_name == "token_embd.weight") return "model.embed_tokens.weight";
  if (gguf_name == "output_norm.weight") return "model.norm.weight";
  if (gguf_name == "output.weight") return "lm_head.weight";
  static const std::regex block(R"(blk\.(\d+)\.([a-z_]+)\.(weight|bias))");
  std::smatch match;
  if (!std::regex_match(gguf_name, match, block)) return std::nullopt;
  const auto found = block_tensor_names().find(match[2]);
  if (found == block_tensor_names().end()) return std::nullopt;
  return "model.layers." + match[1].str() + "." + found->second + "." + match[3].str();
}

torch::Tensor unpermute_rotary_rows(const torch::Tensor& rows, int64_t heads) {
  TORCH_CHECK(rows.dim() >= 1 && heads > 0 && rows.size(0) % (2 * heads) == 0, "unpermute_rotary_rows: ",
              rows.size(0), " rows do not split into ", heads, " heads of an even width");
  // llama.cpp's converter wrote rows (i, i + d/2) of each head next to each other, (heads, d/2, 2, …);
  // transformers wants them as (heads, 2, d/2, …).
  auto shape = rows.sizes().vec();
  std::vector<int64_t> split{heads, rows.size(0) / heads / 2, 2};
  split.insert(split.end(), shape.begin() + 1, shape.end());
  return rows.reshape(split).transpose(1, 2).reshape(shape);
}

std::map<std::string, torch::Tensor> llama_state_dict(const GgufFile& file) {
  const auto options = llama_options_from_gguf(file);
  std::map<std::string, torch::Tensor> tensors;
  std::vector<std::string> unknown;
  for (const auto& info : file.tensors()) {
    const auto name = llama_tensor_name(info.name);
    if (!name) {
      unknown.push_back(info.name);
      continue;
    }
    auto tensor = file.dequantize(info.name);
    if (name->find(".q_proj.") != std::string::npos) tensor = unpermute_rotary_rows(tensor, options.num_attention_heads());
    if (name->find(".k_proj.") != std::string::npos) tensor = unpermute_rotary_rows(tensor, options.num_key_value_heads());
    tensors.emplace(*name, tensor);
  }
  TORCH_CHECK(unknown.empty(), gguf_source(file), ": tensors the Llama family does not have: ",
              c10::Join(", ", unknown));
  return tensors;
}

Pretrained<LlamaForCausalLM> load_llama_for_causal_lm(const GgufFile& file) {
  LlamaForCausalLM model(llama_options_from_gguf(file));
  auto report = load_state_dict(*model, llama_state_dict(file), gguf_source(file), llama_load_options(false));
  return {model, std::move(report)};
}

Pretrained<LlamaForSequenceClassification> load_llama_for_sequence_classification(const GgufFile& file,
                                                                                   int64_t num_labels) {
  LlamaForSequenceClassification model(llama_options_from_gguf(file).num_labels(num_labels));
  auto report = load_state_dict(*model, llama_state_dict(file), gguf_source(file), llama_load_options(true));
  return {model, std::move(report)};
}

}  // namespace capaboost
