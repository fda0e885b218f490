// Fuzzes the GGUF reader (checkpoint/gguf_file.h): header, metadata of every value type, tensor table,
// alignment and layout; then every metadata value through its description and the typed accessors, and
// every tensor through raw_blocks (copied, so that each of its bytes is read) and, for the types the
// suite dequantises, dequantize. Bad input must end in the reader's c10::Error; a crash, a sanitizer
// report or any other exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "checkpoint/gguf_file.h"
#include "fuzz_support.h"

namespace {

// Each accessor on its own: a key of another type refuses one of them, not the rest.
template <typename Read>
void read_if_typed(Read read) {
  try {
    read();
  } catch (const c10::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "model.gguf");
  try {
    const capaboost::GgufFile file(path);
    for (const auto& key : file.keys()) {
      file.value(key).describe();
      read_if_typed([&] { file.integer(key); });
      read_if_typed([&] { file.real(key); });
      read_if_typed([&] { file.strings(key); });
      read_if_typed([&] { file.integers(key); });
      read_if_typed([&] { file.reals(key); });
    }
    for (const auto& info : file.tensors()) {
      file.raw_blocks(info.name).clone();
      if (capaboost::ggml_type_dequantizable(info.type)) file.dequantize(info.name).sum();
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
