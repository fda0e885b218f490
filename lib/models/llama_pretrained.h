#pragma once
// Llama checkpoints in the Hugging Face layout (config.json + model.safetensors): what transformers'
// save_pretrained writes for LlamaForCausalLM and LlamaForSequenceClassification. The real pre-trained
// model the suite ships (SmolLM2-135M) comes as a GGUF file instead: models/llama_gguf.h.
//
//   auto [lm, report] = load_llama_for_causal_lm("checkpoints/tiny-llama");
//   auto [classifier, _] = load_llama_for_sequence_classification("checkpoints/tiny-llama", 2);

#include <torch/torch.h>

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/llama_for_causal_lm.h"
#include "models/llama_for_sequence_classification.h"
#include "models/pretrained_directory.h"

namespace capaboost {

/// How checkpoint names map onto a Llama model, as transformers' from_pretrained does it: the base prefix
/// "model." is added or removed as needed; the rotary tables some versions save
/// (`…rotary_emb.inv_freq`) are ignored; a head the model lacks (`lm_head.*`, `score.*`) is accepted and
/// listed as unexpected. `head_missing_ok` lets the sequence classifier's `score` be missing (a language
/// model's checkpoint: the head keeps its fresh initialisation). Anything else missing or unexpected is
/// an error.
StateDictLoadOptions llama_load_options(bool head_missing_ok);

/// LlamaForCausalLM from `dir`. With tied embeddings a saved `lm_head.weight` is ignored (transformers
/// ties it to the embedding after loading); untied, it must be there.
Pretrained<LlamaForCausalLM> load_llama_for_causal_lm(const std::string& dir);

/// LlamaForSequenceClassification from `dir` (a classifier's checkpoint, or a language model's with a
/// fresh `score`). `num_labels` overrides the config (a new head for a new task).
Pretrained<LlamaForSequenceClassification> load_llama_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// Writes config.json and model.safetensors into `dir` as transformers' save_pretrained does (a tied
/// output projection is not written); tuner parameters are left out unless `include_tuners`.
void save_pretrained(LlamaForCausalLMImpl& model, const std::string& dir, bool include_tuners = false);
void save_pretrained(LlamaForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
