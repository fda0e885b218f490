// Fuzzes the safetensors reader (checkpoint/safetensors.h): the header's length, JSON and entries, then
// every tensor, copied so that each of its bytes is read. Bad input must end in the reader's c10::Error;
// a crash, a sanitizer report or any other exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "checkpoint/safetensors.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "model.safetensors");
  try {
    const capaboost::SafetensorsFile file(path);
    for (const auto& [name, tensor] : file.tensors()) tensor.clone();
  } catch (const c10::Error&) {
  }
  return 0;
}
