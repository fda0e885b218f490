#pragma once
// PEFT methods by name, so that experiment specs can say `method: lora` and a new variant is one
// class plus one registration.

#include "capaboost/branch_stack.h"
#include "sites/site_registry.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

namespace capaboost {

/// A run's resolved configuration: a flat JSON object of named values (`rank`, `branches`, …).
using RunParameters = nlohmann::json;

/// Which parameters a method trains (train/trainable_selection.h applies it).
enum class TrainedParameters {
  kTunersAndHead,  ///< PEFT: the attached tuners and the task head; the backbone is frozen
  kAll,            ///< full fine-tuning
  kBiasesAndHead,  ///< BitFit (Ben Zaken et al., 2022): every bias of the backbone and the task head
};
std::string to_string(TrainedParameters trained);

/// A PEFT method as experiment specs name it.
struct MethodSpec {
  std::string name;
  std::string description;
  /// Attaches the method to `model` as `parameters` say (targets, rank, CapaBoost options, …) and
  /// returns the names of the sites it went on (none for methods that attach no tuner).
  std::function<std::vector<std::string>(torch::nn::Module& model, const RunParameters& parameters)> attach;
  TrainedParameters trained = TrainedParameters::kTunersAndHead;
};

/// Adds a method; a second method of the same name is refused.
void register_method(MethodSpec method);
/// The method called `name`; the error lists the registered names.
const MethodSpec& find_method(const std::string& name);
std::vector<std::string> method_names();

/// The CapaBoost options a run's parameters describe: `branches`, `density`, `mask`, `nm` ("2:4"),
/// `mask_seed`. Without `branches` (or with 1 and mask none) the plain tuner.
CapaBoostOptions capaboost_options(const RunParameters& parameters);

/// The sites a method targets: `targets` (suffix list) and/or `target_regex`.
SiteSelector site_selector(const RunParameters& parameters);

}  // namespace capaboost
