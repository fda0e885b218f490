#pragma once
// LoRA adapters in Hugging Face PEFT's on-disk format, both ways: a directory with adapter_config.json
// (peft_type LORA, r, lora_alpha, target_modules, modules_to_save, task_type) and
// adapter_model.safetensors, whose tensors PEFT names after the wrapped model
// (`base_model.model.roberta.encoder.layer.0.attention.self.query.lora_A.weight` (r, in), `…lora_B.weight`
// (out, r); the task head as `base_model.model.classifier.dense.weight`, PEFT's modules_to_save).
//
// CapaBoost-LoRA exports as what it computes at inference: with d branches of rank r and static masks,
// Σᵢ (B⊙Mb_i)(A⊙Ma_i) = B_cat·A_cat (capaboost/branch_stack.h), a plain LoRA of rank d·r whose factors
// are the stacked masked ones (the dropout-style kind exports its expectation, as it evaluates). PEFT
// scales by lora_alpha / r, so lora_alpha = α·d keeps the suite's α/r.
//
//   save_peft_lora_adapter(peft_lora_adapter(*model, model->head_prefixes(), "roberta-base"), "out/");
//   load_peft_lora_adapter(*fresh_model, "out/");   // plain LoRA of rank d·r plus the head

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace capaboost {

/// What PEFT saves for a LoRA adapter.
struct PeftLoraAdapter {
  nlohmann::json config;                         ///< adapter_config.json
  std::map<std::string, torch::Tensor> tensors;  ///< adapter_model.safetensors, by PEFT's names
};

/// The prefix PEFT's PeftModel puts before the wrapped model's names.
inline const std::string kPeftModelPrefix = "base_model.model.";

/// The LoRA tuners attached to `model` (peft/lora.h, with or without CapaBoost branches) and its task
/// head (the names under `head_prefixes`), as a PEFT adapter of `task_type` ("SEQ_CLS",
/// "QUESTION_ANS") whose base_model_name_or_path is `base_model`. Fails when the model carries another kind of tuner, no LoRA,
/// or LoRAs that differ in rank, branches or α (one LoraConfig describes them all).
PeftLoraAdapter peft_lora_adapter(torch::nn::Module& model, const std::vector<std::string>& head_prefixes,
                                  const std::string& base_model, const std::string& task_type = "SEQ_CLS");

/// Writes `adapter` into `directory` (created if missing): adapter_config.json and
/// adapter_model.safetensors, each atomically.
void save_peft_lora_adapter(const PeftLoraAdapter& adapter, const std::string& directory);

/// Reads a PEFT LoRA adapter from `directory`, attaches plain LoRA tuners of its rank and lora_alpha to
/// the sites its target_modules select (PEFT's rule: a list of name suffixes, or a regex matching the
/// whole name) and loads their factors and the head's tensors. Returns the tuned sites. Refuses, naming
/// the file, what this suite's LoRA would compute differently (rsLoRA, DoRA, trained biases,
/// per-site rank or alpha patterns, fan_in_fan_out), missing and unexpected tensors.
std::vector<std::string> load_peft_lora_adapter(torch::nn::Module& model, const std::string& directory);

}  // namespace capaboost
