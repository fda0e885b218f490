#pragma once
// What a PEFT run changes in a model, and nothing else: the tensors of its attached tuners and of its
// task head, by dotted name (`roberta.encoder.layer.0.attention.self.query.lora.A`, `classifier.dense.weight`).
// A run keeps this small state (kilobytes to megabytes, never the backbone) so that its trained
// model can be rebuilt later — the backbone from its name, the method from the run's config, then
// this state on top — and exported (peft/peft_lora_format.h).
//
//   std::map<std::string, torch::Tensor> state = tuned_state(*model, model->head_prefixes());
//   save_safetensors("run.safetensors", state);
//   load_tuned_state(*rebuilt, SafetensorsFile("run.safetensors"));

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "checkpoint/safetensors.h"

namespace capaboost {

/// Copies (detached clones) of every parameter and buffer of the tuners attached to `model` and of
/// its parameters and buffers whose names start with one of `head_prefixes`. Backbone parameters a
/// method also trains (BitFit's biases, full fine-tuning) are not part of it.
std::map<std::string, torch::Tensor> tuned_state(torch::nn::Module& model, const std::vector<std::string>& head_prefixes);

/// Copies every tensor of `file` into the tensor of `model` with the same name. Every name of the file
/// must exist in the model with the same shape, and every tuner tensor of the model must be in the file:
/// a state from a different method, rank or backbone is refused, naming the file and the tensors.
void load_tuned_state(torch::nn::Module& model, const SafetensorsFile& file);

}  // namespace capaboost
