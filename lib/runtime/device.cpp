#include "runtime/device.h"

#include "util/setup_error.h"

#include <fmt/format.h>

#include <stdexcept>

namespace capaboost::runtime {

std::vector<std::string> device_names() { return {"cpu", "cuda", "auto"}; }

torch::Device resolve_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  const bool has_gpu = torch::cuda::is_available();
  if (name == "auto") return has_gpu ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (name == "cuda") {
    if (!has_gpu) {
      throw SetupError("device 'cuda' asked for, but this LibTorch has no CUDA support or sees no GPU: build the "
                       "suite against a CUDA-enabled LibTorch (docs/clusters-and-gpus.md: cmake -DTorch_DIR=…), check "
                       "that a GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES), or run with --device cpu");
    }
    return torch::Device(torch::kCUDA, 0);
  }
  throw std::invalid_argument(fmt::format("unknown device '{}': use cpu, cuda or auto", name));
}

std::string device_label(const torch::Device& device) { return device.str(); }

torch::Device module_device(const torch::nn::Module& module) {
  const auto parameters = module.parameters();
  if (parameters.empty()) return torch::kCPU;
  const torch::Device device = parameters.front().device();
  for (const auto& parameter : parameters) {
    TORCH_CHECK(parameter.device() == device, "module_device: the module's parameters are on ", device, " and ",
                parameter.device(), "; move the whole module with Module::to");
  }
  return device;
}

}  // namespace capaboost::runtime
