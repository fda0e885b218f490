// Fuzzes the PEFT LoRA adapter reader (peft/peft_lora_format.h, load_peft_lora_adapter): adapter_config.json
// (peft_type, the refused variants, bias, target_modules as a list or a regex, r, lora_alpha,
// lora_dropout, modules_to_save, task_type) and adapter_model.safetensors (names and shapes against the
// sites and head the config selects), loaded into a tiny model built here: two 4x4 TunableLinear sites
// (attention.query, attention.value) and a 4->2 classifier head. The loaded LoRAs then run one forward.
// The input holds both files, adapter_config.json up to its first NUL byte (JSON text has none) and
// adapter_model.safetensors after it. Bad input must end in the reader's c10::Error; a crash, a sanitizer
// report, an allocation beyond libFuzzer's limit or any other exception is a finding.

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "fuzz_support.h"
#include "peft/peft_lora_format.h"
#include "sites/tunable_linear.h"

namespace {

struct TinyAttentionImpl : torch::nn::Module {
  TinyAttentionImpl()
      : query(register_module("query", capaboost::TunableLinear(4, 4))),
        value(register_module("value", capaboost::TunableLinear(4, 4))) {}
  capaboost::TunableLinear query, value;
};
TORCH_MODULE(TinyAttention);

struct TinyModelImpl : torch::nn::Module {
  TinyModelImpl()
      : attention(register_module("attention", TinyAttention())),
        classifier(register_module("classifier", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return classifier(attention->value(attention->query(x)));
  }
  TinyAttention attention;
  torch::nn::Linear classifier;
};
TORCH_MODULE(TinyModel);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  const uint8_t* separator = std::find(data, end, uint8_t{0});
  capaboost::fuzz::write_input(data, static_cast<size_t>(separator - data), "peft/adapter_config.json");
  const uint8_t* weights = separator == end ? end : separator + 1;
  const auto directory = std::filesystem::path(capaboost::fuzz::write_input(
                                                   weights, static_cast<size_t>(end - weights),
                                                   "peft/adapter_model.safetensors"))
                             .parent_path()
                             .string();
  try {
    TinyModel model;
    capaboost::load_peft_lora_adapter(*model, directory);
    torch::NoGradGuard no_grad;
    model->eval();
    model->forward(torch::ones({1, 4}));
  } catch (const c10::Error&) {
  }
  return 0;
}
