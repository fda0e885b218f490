// Fuzzes loading and checking an experiment spec (spec/spec.h): YAML syntax, the structure, every
// parameter typed against the registered measures, methods and tasks (spec/parameter_yaml.h), profiles,
// report layouts and the consistency checks. Every problem must end in one SpecError listing them; a
// crash, a sanitizer report or any other exception (yaml-cpp's own included) is a finding.

#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "spec/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Alone in its folder: no profiles.yaml beside it, so only the input is read.
  const auto path = capaboost::fuzz::write_input(data, size, "spec/spec.yaml");
  try {
    capaboost::harness::load_spec(path);
  } catch (const capaboost::harness::SpecError&) {
  }
  return 0;
}
