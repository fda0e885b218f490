#include "runtime/precision.h"

#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>
#include <cpuid.h>

#include <cstdint>

#include "runtime/autocast_compat.h"
#include "util/setup_error.h"

namespace capaboost::runtime {
namespace {

// XCR0 via XGETBV: which register states the OS saves on a context switch. A CPU may report AVX-512
// or AMX in CPUID while the OS leaves them disabled; using them then faults.
uint64_t xcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

}  // namespace

std::string to_string(Precision precision) { return precision == Precision::kBf16 ? "bf16" : "fp32"; }

std::vector<std::string> precision_names() { return {"fp32", "bf16"}; }

Precision parse_precision(const std::string& name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "bf16") return Precision::kBf16;
  TORCH_CHECK(false, "unknown precision '", name, "'; choose fp32 or bf16");
}

std::string cpu_bf16_support() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return "";
  const uint64_t saved = xcr0();
  // Bits 1-2 (SSE, AVX) and 5-7 (opmask, ZMM upper halves, ZMM16-31) for AVX-512; 17-18 (tile config
  // and data) for AMX.
  const bool os_avx512 = (saved & 0xE6) == 0xE6;
  const bool os_amx = (saved & 0x60000) == 0x60000;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return "";
  const bool avx512f = ebx & (1u << 16);
  const bool amx_bf16 = edx & (1u << 22);
  const unsigned max_subleaf = eax;
  if (amx_bf16 && os_amx && avx512f && os_avx512) return "amx_bf16";
  if (max_subleaf >= 1 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) {
    const bool avx512_bf16 = eax & (1u << 5);
    if (avx512_bf16 && avx512f && os_avx512) return "avx512_bf16";
  }
  return "";
}

void require_precision(Precision precision, c10::DeviceType device) {
  if (precision != Precision::kBf16 || device != c10::DeviceType::CPU) return;
  if (!cpu_bf16_support().empty()) return;
  throw SetupError(
      "precision bf16 needs a CPU with AVX512-BF16 or AMX-BF16 (this one has neither, so oneDNN would emulate "
      "bf16 more slowly than fp32 runs); use precision: fp32 here, or run on such a CPU (grep avx512_bf16 "
      "/proc/cpuinfo tells)");
}

PrecisionScope::PrecisionScope(Precision precision, c10::DeviceType device)
    : active_(precision == Precision::kBf16), device_(device) {
  if (!active_) return;
  TORCH_CHECK(device == c10::DeviceType::CPU || device == c10::DeviceType::CUDA,
              "PrecisionScope: bf16 runs through the CPU's or CUDA's autocast; no autocast is driven on ", device);
  was_enabled_ = autocast_enabled(device_);
  previous_dtype_ = static_cast<int>(autocast_dtype(device_));
  set_autocast_enabled(device_, true);
  set_autocast_dtype(device_, at::kBFloat16);
  at::autocast::increment_nesting();
}

PrecisionScope::~PrecisionScope() {
  if (!active_) return;
  // The cache holds bf16 copies of trainable weights keyed by the fp32 tensor; after an optimizer step
  // they would be stale, so the outermost scope drops them (as torch.autocast's __exit__ does).
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast_enabled(device_, was_enabled_);
  set_autocast_dtype(device_, static_cast<at::ScalarType>(previous_dtype_));
}

}  // namespace capaboost::runtime
