#pragma once
// Moving a module's parameters and buffers to and from safetensors files by name, like PyTorch's
// state_dict / load_state_dict: names are the module's dotted paths, so Hugging Face checkpoints map 1:1.

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "checkpoint/safetensors.h"

namespace capaboost {

/// How the names of a checkpoint matched a module's.
struct LoadReport {
  std::vector<std::string> loaded;      ///< module names filled from the file
  std::vector<std::string> missing;     ///< module names the file lacks (left as they were)
  std::vector<std::string> unexpected;  ///< file names the module lacks (not loaded)
  std::vector<std::string> ignored;     ///< file names skipped on purpose (StateDictLoadOptions::ignore)
  /// "missing: [...]; unexpected: [...]" for messages.
  std::string describe() const;
  /// Records `names`, kept out of the load on purpose (StateDictLoadOptions::exclude), as missing: they
  /// keep their initialisation. `missing` stays sorted.
  void add_missing(const std::vector<std::string>& names);
};

struct StateDictLoadOptions {
  /// Regexes (matching a whole name) of file tensors to skip silently, e.g. buffers older Hugging Face
  /// versions save but the module does not keep.
  TORCH_ARG(std::vector<std::string>, ignore) = {};
  /// Regexes of module names that may be missing from the file (e.g. a new classification head); any
  /// other missing name is an error.
  TORCH_ARG(std::vector<std::string>, allow_missing) = {};
  /// Regexes of file names the module may lack (e.g. a pre-training head "lm_head\\..*"); they are
  /// listed in LoadReport::unexpected; any other unexpected name is an error.
  TORCH_ARG(std::vector<std::string>, allow_unexpected) = {};
  /// Module names neither expected nor loaded, e.g. the tensors of attached tuners
  /// (sites/site_registry.h: tuner_tensor_names), so a backbone checkpoint loads into a tuned model.
  TORCH_ARG(std::vector<std::string>, exclude) = {};
  /// Hugging Face's base-model prefix (e.g. "roberta."). When the module's names carry it and the
  /// file's do not (a bare-encoder checkpoint), it is added to the file's names; when the file's names
  /// carry it and the module's do not (a headed checkpoint into the bare encoder), it is removed.
  TORCH_ARG(std::string, base_prefix) = "";
};

/// Copies every tensor of `file` into the parameter or buffer of `module` with the same name (converted
/// to the module's dtype; float and integer never mix). Throws naming the file and tensor on a shape
/// mismatch, and listing the names on missing or unexpected tensors that `options` does not allow.
LoadReport load_state_dict(torch::nn::Module& module, const SafetensorsFile& file,
                           const StateDictLoadOptions& options = {});

/// load_state_dict from tensors already in memory (converted from another format, e.g. GGUF); `source`
/// names where they came from in every message ("GGUF file 'x.gguf'").
LoadReport load_state_dict(torch::nn::Module& module, const std::map<std::string, torch::Tensor>& tensors,
                           const std::string& source, const StateDictLoadOptions& options = {});

/// The module's parameters and buffers by dotted name, except the names in `excluded`.
std::map<std::string, torch::Tensor> state_dict(torch::nn::Module& module,
                                                const std::vector<std::string>& excluded = {});

/// The parameter and buffer names of `module` under `prefix` ("classifier."): a model's head in a tuned
/// state, or what a checkpoint must not load into an output layer rebuilt for another label count
/// (fresh, as transformers' ignore_mismatched_sizes leaves it).
std::vector<std::string> names_under(torch::nn::Module& module, const std::string& prefix);

/// Writes `state_dict(module, excluded)` to `path` as safetensors (atomically).
void save_state_dict(torch::nn::Module& module, const std::string& path,
                     const std::vector<std::string>& excluded = {});

}  // namespace capaboost
