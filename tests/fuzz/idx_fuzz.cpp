// Fuzzes the IDX reader (data/idx_file.h, MNIST's and Fashion-MNIST's format): the magic number, the
// element type, the dimension count and sizes, the body and what follows it, read through zlib, so both
// plain and gzip-compressed inputs reach it (the seeds hold both). Bad input must end in the reader's
// c10::Error; a crash, a sanitizer report, an allocation beyond libFuzzer's limit or any other exception
// is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "data/idx_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "images-idx3-ubyte");
  try {
    capaboost::read_idx_file(path).sum();
  } catch (const c10::Error&) {
  }
  return 0;
}
