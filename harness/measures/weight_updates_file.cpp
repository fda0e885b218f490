#include "measures/weight_updates_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "checkpoint/safetensors.h"
#include "pretrain/backbone_builder.h"
#include "sites/site_registry.h"
#include "sites/site_tuner.h"
#include "train/trainer.h"
#include "util/setup_error.h"
#include "util/path_name.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

std::string weight_updates_path(const std::string& name) {
  check_path_name(name, "weight updates name");
  return (fs::path(BackboneEnvironment::from_environment().cache_root) / "updates" / (name + ".safetensors")).string();
}

std::map<std::string, torch::Tensor> snapshot_site_weights(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> weights;
  for (const auto& [name, site] : find_sites(model)) weights[name] = site->weight.detach().to(torch::kCPU, torch::kFloat32).clone();
  return weights;
}

namespace {

// A tuner that changes nothing and keeps the first `capacity` rows of what its site receives.
class InputRecorderImpl : public SiteTunerImpl {
 public:
  explicit InputRecorderImpl(int64_t capacity) : capacity_(capacity) {}
  std::string kind() const override { return "input_recorder"; }
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override {
    if (kept_ < capacity_) {
      auto flat = x.detach().reshape({-1, x.size(-1)}).to(torch::kCPU, torch::kFloat32);  // (tokens, in)
      flat = flat.narrow(0, 0, std::min<int64_t>(flat.size(0), capacity_ - kept_));
      rows_.push_back(flat.clone());
      kept_ += flat.size(0);
    }
    return y;
  }
  TunerParameterCount parameter_count() const override { return {}; }
  TunerFlops flops_per_token() const override { return {}; }
  torch::Tensor rows() const { return rows_.empty() ? torch::Tensor() : torch::cat(rows_); }

 private:
  int64_t capacity_, kept_ = 0;
  std::vector<torch::Tensor> rows_;
};
TORCH_MODULE(InputRecorder);

}  // namespace

std::map<std::string, torch::Tensor> record_site_inputs(TaskModelImpl& model, const TrainingSplit& split, int64_t rows) {
  std::map<std::string, std::pair<std::shared_ptr<TunableLinearImpl>, InputRecorder>> recorders;
  for (const auto& [name, site] : find_sites(model)) {
    if (site->tuner()) continue;
    InputRecorder recorder(rows);
    site->attach(recorder.ptr());
    recorders.emplace(name, std::make_pair(site, recorder));
  }
  // Batches of one: every recorded row is a real token, none is padding.
  evaluate_model(model, split, /*batch_size=*/1);
  std::map<std::string, torch::Tensor> inputs;
  for (auto& [name, recorded] : recorders) {
    recorded.first->detach();
    if (auto kept = recorded.second->rows(); kept.defined()) inputs[name] = kept;
  }
  return inputs;
}

std::string save_weight_updates(const std::string& name, torch::nn::Module& model,
                                const std::map<std::string, torch::Tensor>& before,
                                const std::map<std::string, torch::Tensor>& inputs,
                                const std::map<std::string, std::string>& metadata) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> updates;
  for (const auto& [site_name, site] : find_sites(model)) {
    const auto start = before.find(site_name);
    TORCH_CHECK(start != before.end(), "weight updates: site '", site_name, "' has no weights from before training");
    updates[site_name] = site->weight.detach().to(torch::kCPU, torch::kFloat32) - start->second;  // (out, in)
  }
  for (const auto& [site_name, rows] : inputs) updates["inputs." + site_name] = rows;
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
    if (tensor.rfind("inputs.", 0) == 0) continue;
    if (tensor.size() >= site_suffix.size() && tensor.compare(tensor.size() - site_suffix.size(), site_suffix.size(), site_suffix) == 0 &&
        (tensor.size() == site_suffix.size() || tensor[tensor.size() - site_suffix.size() - 1] == '.')) {
      matches.push_back(tensor);
    }
  }
  TORCH_CHECK(matches.size() == 1, path, ": site suffix '", site_suffix, "' must name exactly one site, it names ",
              matches.size(), matches.empty() ? "" : fmt::format(" ({})", fmt::join(matches, ", ")));
  const std::string inputs = "inputs." + matches.front();
  return {file.tensor(matches.front()).to(torch::kFloat32).clone(),
          file.contains(inputs) ? file.tensor(inputs).to(torch::kFloat32).clone() : torch::Tensor(), matches.front(), path,
          file.metadata()};
}

}  // namespace capaboost::harness
