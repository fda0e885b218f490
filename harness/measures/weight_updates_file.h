#pragma once
// Named files of fine-tuning weight updates: a `finetune` run with `weight_updates: NAME` saves every
// linear backbone site's ΔW = W(last epoch) − W(start) as <cache>/updates/NAME.safetensors (cache:
// $CAPABOOST_CACHE, else ~/.cache/capaboost), and the `capacity` measure fits parameterisations to one
// of them (target "updates:NAME:SITE_SUFFIX"). Full fine-tuning's updates of the real encoder are what
// a PEFT module would have to express.

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace capaboost::harness {

/// <cache>/updates/<name>.safetensors.
std::string weight_updates_path(const std::string& name);

/// The weights of every linear site of `model` (site name → a detached CPU copy), before training.
std::map<std::string, torch::Tensor> snapshot_site_weights(torch::nn::Module& model);

/// Saves each site's current weight minus its `before` copy (float32, CPU) under `name`, with
/// `metadata` (the run's configuration); atomic. Returns the path written.
std::string save_weight_updates(const std::string& name, torch::nn::Module& model,
                                const std::map<std::string, torch::Tensor>& before,
                                const std::map<std::string, std::string>& metadata);

/// One site's update from a saved file: the tensor whose site name ends with `site_suffix` (exactly
/// one must), its full name, the file's path and its metadata. A missing file is a set-up error
/// naming the spec that makes it.
struct SiteUpdate {
  torch::Tensor delta;  // (out, in) float32
  std::string site;
  std::string path;
  std::map<std::string, std::string> metadata;
};
SiteUpdate load_site_update(const std::string& name, const std::string& site_suffix);

}  // namespace capaboost::harness
