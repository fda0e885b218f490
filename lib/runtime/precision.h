#pragma once
// The numeric precision of a run's matrix products: fp32, or bf16 through LibTorch's autocast (the CPU's,
// or CUDA's for a run on a GPU).
//
// In bf16 the products (linear layers, attention's batched GEMMs) run on oneDNN's bf16 kernels while
// the master weights, the optimizer state and the loss stay fp32: autocast casts each product's
// operands to bf16 and autograd casts the gradients back, so the optimizer never sees bf16. Only CPUs
// with bf16 arithmetic (AVX512-BF16 or AMX-BF16) run it fast; elsewhere oneDNN emulates it more
// slowly than fp32, so the suite refuses bf16 there instead of silently running a slower job.

#include <c10/core/DeviceType.h>

#include <string>
#include <vector>

namespace capaboost::runtime {

enum class Precision { kFp32, kBf16 };

/// "fp32" / "bf16".
std::string to_string(Precision precision);
/// The names `parse_precision` accepts, in order: fp32, bf16.
std::vector<std::string> precision_names();
/// Throws naming the accepted values when `name` is neither.
Precision parse_precision(const std::string& name);

/// The bf16 instructions this CPU and its operating system offer: "amx_bf16", "avx512_bf16", or ""
/// when neither (read from CPUID, with XGETBV confirming the OS saves the AVX-512 / AMX state).
std::string cpu_bf16_support();

/// Throws a SetupError (util/setup_error.h: the harness stops the sweep and records nothing), with the
/// fix, when `precision` cannot run fast on `device`: bf16 on a CPU without cpu_bf16_support(). CUDA
/// runs bf16 through its own autocast (tensor cores from Ampere on), so a GPU is not refused.
void require_precision(Precision precision, c10::DeviceType device = c10::DeviceType::CPU);

/// Within its scope, matrix products on `device` run in `precision`: for bf16 it enables LibTorch's
/// autocast for that device type (CPU or CUDA) with bf16 (thread-local, as autocast is) and, on leaving
/// the outermost scope, drops autocast's cache of bf16 weight copies, which the next optimizer step
/// makes stale. For fp32 it does nothing.
/// Run backward outside the scope, as PyTorch's autocast guide says: autograd replays each op in the
/// precision its forward ran in.
class PrecisionScope {
 public:
  explicit PrecisionScope(Precision precision, c10::DeviceType device = c10::DeviceType::CPU);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType device_;
  bool was_enabled_ = false;
  int previous_dtype_ = 0;  // at::ScalarType, kept as int so this header needs no ATen include
};

}  // namespace capaboost::runtime
