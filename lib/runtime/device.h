#pragma once
// The device a run's model trains on: the CPU, or a CUDA GPU when the suite is built against a
// CUDA-enabled LibTorch (Debian's is CPU-only; README, "GPU clusters").
//
// Everything a run creates follows its model's device: modules are built on the CPU and moved with
// Module::to, tensors made during forward take their device from an input (`x.options()`), and batches
// are moved by the trainer. What must not depend on the device — CapaBoost's masks, initial weights,
// data order — is drawn on the CPU from its seed before the move, so one run key gives the same masks
// and initialisation on any device.

#include <torch/torch.h>

#include <string>
#include <vector>

namespace capaboost::runtime {

/// The names resolve_device accepts: cpu, cuda, auto (cuda when this LibTorch sees a GPU, else cpu).
std::vector<std::string> device_names();

/// The device `name` stands for. Throws a SetupError naming the fix for cuda when this LibTorch has no
/// CUDA support or sees no GPU, and std::invalid_argument for an unknown name.
torch::Device resolve_device(const std::string& name);

/// "cpu", "cuda:0", … as provenance records it.
std::string device_label(const torch::Device& device);

/// The device of `module`'s parameters (the CPU for a module without parameters). Throws when they
/// are spread over several devices.
torch::Device module_device(const torch::nn::Module& module);

}  // namespace capaboost::runtime
