// The decoder backbones: `smollm2` (the GGUF file `make backbone-smollm2` installs) gives a Llama
// sequence classifier with SmolLM2's tokenizer as it was trained (no BOS, digits one by one), names the
// file its weights came from, refuses the span head, and its random twin has the same shape; a missing
// file is an error naming the make target.

#include "backbones/llama_backbones.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "backbones/backbone_registry.h"
#include "models/llama_for_sequence_classification.h"
#include "support/temp_dir.h"

using namespace capaboost;

TEST_CASE("smollm2 loads SmolLM2-135M from its GGUF file as a sequence classifier", "[backbones][llama]") {
  const auto path = smollm2_gguf_path();  // fails naming `make backbone-smollm2` when missing
  const Backbone backbone = load_backbone("smollm2", TaskHead{TaskHead::Kind::kSequenceClassification, 3}, {});
  auto* classifier = dynamic_cast<LlamaForSequenceClassificationImpl*>(backbone.model.get());
  REQUIRE(classifier != nullptr);
  CHECK(classifier->options.num_hidden_layers() == 30);
  CHECK(classifier->options.num_labels() == 3);
  CHECK(backbone.pretrained);
  CHECK(backbone.weights_file == path);
  CHECK(backbone.model->head_prefixes() == std::vector<std::string>{"score."});
  int64_t parameters = 0;
  for (const auto& p : backbone.model->parameters()) parameters += p.numel();
  CHECK(parameters == 134515008 + 576 * 3);  // SmolLM2-135M (tied embedding) + the 3-label score

  const auto& tokenizer = *backbone.processor.tokenizer;
  CHECK(tokenizer.vocab_size() == 49152);
  CHECK(tokenizer.pad_id() == 2);
  // No BOS (the file's add_bos_token is false) and every digit its own piece (tokenizer.ggml.pre smollm).
  const auto ids = tokenizer.encode("Paris 2024").input_ids;
  CHECK(ids.size() == 6);  // "Paris", " ", "2", "0", "2", "4"
  CHECK(ids.front() != 1);

  CHECK_THROWS_WITH(load_backbone("smollm2", TaskHead{TaskHead::Kind::kSpan, 2}, {}),
                    Catch::Contains("sequence classification only"));
  const Backbone random = load_backbone("smollm2-random", TaskHead{TaskHead::Kind::kSequenceClassification, 2}, {});
  CHECK_FALSE(random.pretrained);
  CHECK(random.weights_file.empty());
}

TEST_CASE("smollm2 without its file names the command that installs it", "[backbones][llama]") {
  capaboost::testing::TempDir empty;
  const char* previous = std::getenv("CAPABOOST_CHECKPOINTS");
  const std::string saved = previous == nullptr ? "" : previous;
  setenv("CAPABOOST_CHECKPOINTS", empty.path().c_str(), 1);
  CHECK_THROWS_WITH(smollm2_gguf_path(), Catch::Contains("make backbone-smollm2"));
  if (previous == nullptr) {
    unsetenv("CAPABOOST_CHECKPOINTS");
  } else {
    setenv("CAPABOOST_CHECKPOINTS", saved.c_str(), 1);
  }
}
