// Fuzzes reading a run record as the store does (store/record_store.h: RecordStore::read, which parses
// runs/<key>.json, checks its seal (store/record_digest.h) and hands it to RunRecord::from_json), then
// writes the record back to JSON. A record that is corrupt, unsealed where it must be sealed, or not a
// record must end in the std::runtime_error read documents; a crash, a sanitizer report or any other
// exception is a finding.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_support.h"
#include "store/record_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  capaboost::fuzz::write_input(data, size, "runs/fuzz.json");
  try {
    const capaboost::harness::RecordStore store(capaboost::fuzz::scratch_directory().string());
    if (const auto record = store.read("fuzz")) record->to_json().dump();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
