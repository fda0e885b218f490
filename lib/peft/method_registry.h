#pragma once
// PEFT methods by name, so that experiment specs can say `method: lora` and a new variant is one
// class plus one self-registering source file (util/registry.h):
//
//   [[maybe_unused]] const bool registered = register_method(MethodSpec{
//       "lora", "LoRA (Hu et al., 2022) on the target sites", lora_parameters(), attach_lora});
//
// A method declares its parameters (params/parameter.h) next to its implementation; the harness
// validates specs, fills defaults and lists methods from these declarations.

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "params/parameter.h"
#include "params/parameters.h"
#include "train/training_hooks.h"

namespace capaboost {

/// A PEFT method as experiment specs name it.
struct MethodSpec {
  std::string name;
  std::string description;
  /// Every parameter the method reads: its own and the shared groups it builds on (site selection,
  /// CapaBoost). Definitions without an owner are owned by "method <name>".
  ParameterList parameters;
  /// Attaches the method to `model` as `config` (resolved against `parameters`) says and returns the
  /// names of the sites it went on (none for methods that attach no tuner).
  std::function<std::vector<std::string>(torch::nn::Module& model, const Parameters& config)> attach;
  /// Which backbone parameters (by dotted name) train besides the tuners and the task head, which
  /// always do; nullptr: none (PEFT). Full fine-tuning says all, BitFit the biases.
  std::function<bool(const std::string& parameter_name)> trains_backbone_parameter = nullptr;
  /// What trains, for records and listings.
  std::string trains = "tuners + head";
  /// The method's additions to the training loop (a regulariser, a per-step update), made after
  /// `attach` on the same model; nullptr: none.
  std::function<TrainingHooksPtr(torch::nn::Module& model, const Parameters& config)> training_hooks = nullptr;
};

/// Adds a method; a second method of the same name is refused. Returns true, for static registration.
bool register_method(MethodSpec method);
/// The method called `name`; the error suggests a close name and lists the registered ones.
const MethodSpec& find_method(const std::string& name);
std::vector<std::string> method_names();

}  // namespace capaboost
