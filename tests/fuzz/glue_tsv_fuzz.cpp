// Fuzzes the GLUE TSV loader (data/glue_loader.h over data/tsv_reader.h): every input is read with
// every task's column layout, labeled (train/dev) and unlabeled (test), so one real file of any task
// seeds them all. Bad input must end in the loader's c10::Error; a crash, a sanitizer report or any
// other exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "data/glue_loader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "data.tsv");
  for (const auto& task : capaboost::glue_tasks()) {
    for (const bool labeled : {true, false}) {
      try {
        capaboost::load_glue_tsv(task, path, labeled);
      } catch (const c10::Error&) {
      }
    }
  }
  return 0;
}
