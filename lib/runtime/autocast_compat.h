#pragma once
// Autocast's per-device state under every LibTorch the suite builds with.
//
// LibTorch 1.13 (Debian's) names one function per backend: is_cpu_enabled / set_cpu_enabled /
// get_autocast_cpu_dtype for the CPU, is_enabled / set_enabled / get_autocast_gpu_dtype for CUDA.
// LibTorch 2.4 replaced them with functions taking the device type and deprecated the old names (2.11
// still has them, warning at every use). These four forward to whichever the headers offer.

#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

namespace capaboost::runtime {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)

/// Whether autocast is on for `device` (kCPU or kCUDA) on this thread.
inline bool autocast_enabled(c10::DeviceType device) { return at::autocast::is_autocast_enabled(device); }
inline void set_autocast_enabled(c10::DeviceType device, bool enabled) {
  at::autocast::set_autocast_enabled(device, enabled);
}
/// The dtype autocast runs `device`'s products in (bf16 or fp16).
inline at::ScalarType autocast_dtype(c10::DeviceType device) { return at::autocast::get_autocast_dtype(device); }
inline void set_autocast_dtype(c10::DeviceType device, at::ScalarType dtype) {
  at::autocast::set_autocast_dtype(device, dtype);
}

#else  // LibTorch < 2.4: one function per backend.

inline bool autocast_enabled(c10::DeviceType device) {
  if (device == c10::DeviceType::CPU) return at::autocast::is_cpu_enabled();
  if (device == c10::DeviceType::CUDA) return at::autocast::is_enabled();
  return false;
}
inline void set_autocast_enabled(c10::DeviceType device, bool enabled) {
  TORCH_CHECK(device == c10::DeviceType::CPU || device == c10::DeviceType::CUDA,
              "set_autocast_enabled: autocast is driven on the CPU and CUDA only, not ", device);
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
}
inline at::ScalarType autocast_dtype(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
}
inline void set_autocast_dtype(c10::DeviceType device, at::ScalarType dtype) {
  TORCH_CHECK(device == c10::DeviceType::CPU || device == c10::DeviceType::CUDA,
              "set_autocast_dtype: autocast is driven on the CPU and CUDA only, not ", device);
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
}

#endif

}  // namespace capaboost::runtime
