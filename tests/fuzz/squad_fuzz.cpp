// Fuzzes the SQuAD reader (data/squad_dataset.h), both the official nested layout and Hugging Face's
// flat one. Bad input must end in the reader's c10::Error; a crash, a sanitizer report or any other
// exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "data/squad_dataset.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "squad.json");
  try {
    capaboost::load_squad(path);
  } catch (const c10::Error&) {
  }
  return 0;
}
