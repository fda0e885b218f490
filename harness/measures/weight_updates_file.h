#pragma once
// Named files of fine-tuning weight updates: a `finetune` run with `weight_updates: NAME` saves every
// linear backbone site's ΔW = W(last epoch) − W(start) as <cache>/updates/NAME.safetensors (cache:
// $CAPABOOST_CACHE, else ~/.cache/capaboost), beside "inputs.<site>": rows of what the site received
// from the pre-trained model on real examples. The `capacity` measure fits parameterisations to one
// site's update, in the weights' norm (target "updates:NAME:SITE_SUFFIX") or on those inputs
// ("outputs:NAME:SITE_SUFFIX"). Full fine-tuning's updates of the real encoder are what a PEFT module
// would have to express.

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/task_model.h"
#include "train/training_split.h"

namespace capaboost::harness {

/// <cache>/updates/<name>.safetensors.
std::string weight_updates_path(const std::string& name);

/// The weights of every linear site of `model` (site name → a detached CPU copy), before training.
std::map<std::string, torch::Tensor> snapshot_site_weights(torch::nn::Module& model);

/// The first `rows` input rows (tokens) each linear site of `model` receives over `split`, one example
/// at a time (no padding rows): site name → (rows, in) float32. Sites with a tuner attached are not
/// recorded. The model is left as it was (eval mode; training mode restored by the trainer).
std::map<std::string, torch::Tensor> record_site_inputs(TaskModelImpl& model, const TrainingSplit& split, int64_t rows);

/// Saves each site's current weight minus its `before` copy (float32, CPU) under `name`, and each of
/// `inputs` as "inputs.<site>", with `metadata` (the run's configuration); atomic. Returns the path.
std::string save_weight_updates(const std::string& name, torch::nn::Module& model,
                                const std::map<std::string, torch::Tensor>& before,
                                const std::map<std::string, torch::Tensor>& inputs,
                                const std::map<std::string, std::string>& metadata);

/// One site's update from a saved file: the tensor whose site name ends with `site_suffix` (exactly
/// one must), its full name, the file's path and its metadata. A missing file is a set-up error
/// naming the spec that makes it.
struct SiteUpdate {
  torch::Tensor delta;   // (out, in) float32
  torch::Tensor inputs;  // (rows, in) float32; undefined when the file has none for the site
  std::string site;
  std::string path;
  std::map<std::string, std::string> metadata;
};
SiteUpdate load_site_update(const std::string& name, const std::string& site_suffix);

}  // namespace capaboost::harness
