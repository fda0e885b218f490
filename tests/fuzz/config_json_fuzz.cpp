// Fuzzes config.json reading (checkpoint/config_json.h) through the three loaders that use it, each
// with its own fields and checks: RoBERTa, DeBERTa-v2 and ViT. Bad input must end in the loader's
// c10::Error; a crash, a sanitizer report or any other exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "models/deberta_v2_config.h"
#include "models/bert_config.h"
#include "models/vit_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "config.json");
  try {
    capaboost::load_roberta_config(path);
  } catch (const c10::Error&) {
  }
  try {
    capaboost::load_deberta_v2_config(path);
  } catch (const c10::Error&) {
  }
  try {
    capaboost::load_vit_config(path);
  } catch (const c10::Error&) {
  }
  return 0;
}
