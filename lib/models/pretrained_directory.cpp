#include "models/pretrained_directory.h"

#include <filesystem>

#include "checkpoint/config_json.h"
#include "sites/site_registry.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string config_file(const std::string& dir) { return (fs::path(dir) / kConfigFileName).string(); }

SafetensorsFile open_weights(const std::string& dir) {
  const fs::path weights = fs::path(dir) / kWeightsFileName;
  if (!fs::exists(weights) && fs::exists(fs::path(dir) / "pytorch_model.bin")) {
    TORCH_CHECK(false, dir, " holds pytorch_model.bin but no model.safetensors; the suite reads safetensors only. "
                "Convert it once with Debian's python3-torch: `$(command -v -p python3) "
                "harness/scripts/convert_pytorch_checkpoint.py ", dir, "`");
  }
  return SafetensorsFile(weights.string());
}

void save_model_directory(torch::nn::Module& model, const nlohmann::json& config, const std::string& dir,
                          bool include_tuners) {
  fs::create_directories(dir);
  save_state_dict(model, (fs::path(dir) / kWeightsFileName).string(),
                  include_tuners ? std::vector<std::string>{} : tuner_tensor_names(model));
  save_config_json(config_file(dir), config);
}

}  // namespace capaboost
