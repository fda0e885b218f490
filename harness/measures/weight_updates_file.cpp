#include "measures/weight_updates_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "checkpoint/safetensors.h"
#include "pretrain/backbone_builder.h"
#include "sites/site_registry.h"
#include "util/setup_error.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

std::string weight_updates_path(const std::string& name) {
  TORCH_CHECK(!name.empty() && name.find('/') == std::string::npos && name.find("..") == std::string::npos,
              "weight updates name '", name, "': a file stem without '/' or '..'");
  return (fs::path(BackboneEnvironment::from_environment().cache_root) / "updates" / (name + ".safetensors")).string();
}

std::map<std::string, torch::Tensor> snapshot_site_weights(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> weights;
  for (const auto& [name, site] : find_sites(model)) weights[name] = site->weight.detach().to(torch::kCPU, torch::kFloat32).clone();
  return weights;
}

std::string save_weight_updates(const std::string& name, torch::nn::Module& model,
                                const std::map<std::string, torch::Tensor>& before,
                                const std::map<std::string, std::string>& metadata) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> updates;
  for (const auto& [site_name, site] : find_sites(model)) {
    const auto start = before.find(site_name);
    TORCH_CHECK(start != before.end(), "weight updates: site '", site_name, "' has no weights from before training");
    updates[site_name] = site->weight.detach().to(torch::kCPU, torch::kFloat32) - start->second;  // (out, in)
  }
  const std::string path = weight_updates_path(name);
  fs::create_directories(fs::path(path).parent_path());
  save_safetensors(path, updates, metadata);
  return path;
}

SiteUpdate load_site_update(const std::string& name, const std::string& site_suffix) {
  const std::string path = weight_updates_path(name);
  if (!fs::exists(path)) {
    throw SetupError(fmt::format("{}: no weight updates named '{}'; make them first with `make capacity-targets` "
                                 "(experiments/capacity_targets.yaml: full fine-tuning with weight_updates: {}; "
                                 "add --force to its `capaboost run` when its runs are recorded but the cache was emptied)",
                                 path, name, name));
  }
  const SafetensorsFile file(path);
  std::vector<std::string> matches;
  for (const auto& tensor : file.names()) {
    if (tensor.size() >= site_suffix.size() && tensor.compare(tensor.size() - site_suffix.size(), site_suffix.size(), site_suffix) == 0 &&
        (tensor.size() == site_suffix.size() || tensor[tensor.size() - site_suffix.size() - 1] == '.')) {
      matches.push_back(tensor);
    }
  }
  TORCH_CHECK(matches.size() == 1, path, ": site suffix '", site_suffix, "' must name exactly one site, it names ",
              matches.size(), matches.empty() ? "" : fmt::format(" ({})", fmt::join(matches, ", ")));
  return {file.tensor(matches.front()).to(torch::kFloat32).clone(), matches.front(), path, file.metadata()};
}

}  // namespace capaboost::harness
