// RoBERTa as a backbone plugin: Hugging Face checkpoints of model_type "roberta", the downloaded
// roberta-base, and randomly initialised RoBERTa shapes for baselines and tests.
//
//   model: roberta-base             the pre-trained checkpoint in $CAPABOOST_CHECKPOINTS/roberta-base
//   model: roberta-base-random      RoBERTa-base's shape, random weights, roberta-base's tokenizer
//   model: tiny-random              2 layers × 32 wide, random weights, roberta-base's tokenizer (tests)
//   model: /path/to/checkpoint      any directory whose config.json says model_type "roberta"

#include <filesystem>

#include "backbones/backbone_registry.h"
#include "models/roberta_pretrained.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

TaskModelPtr roberta_task_model(RobertaOptions options, const TaskHead& head) {
  switch (head.kind) {
    case TaskHead::Kind::kSequenceClassification:
      options.num_labels(head.num_labels).label_names({});
      return RobertaForSequenceClassification(options).ptr();
    case TaskHead::Kind::kSpan:
      return RobertaForQuestionAnswering(options).ptr();
  }
  TORCH_CHECK(false, "RoBERTa backbones: unknown task head");
}

Backbone load_roberta_backbone(const std::string& directory, const TaskHead& head) {
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);  // byte-level BPE or SentencePiece, by the files present
  if (head.kind == TaskHead::Kind::kSpan) {
    auto loaded = load_roberta_for_question_answering(directory);
    backbone.processor = {tokenizer, loaded.model->options.max_length(), std::nullopt};
    backbone.model = loaded.model.ptr();
  } else {
    auto loaded = load_roberta_for_sequence_classification(directory, head.num_labels);
    backbone.processor = {tokenizer, loaded.model->options.max_length(), std::nullopt};
    backbone.model = loaded.model.ptr();
  }
  backbone.pretrained = true;
  backbone.description = "checkpoint " + directory;
  backbone.checkpoint_directory = directory;
  return backbone;
}

Backbone random_roberta_like(const std::string& directory, const TaskHead& head) {
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);
  const auto options = load_roberta_config((fs::path(directory) / kConfigFileName).string());
  backbone.processor = {tokenizer, options.max_length(), std::nullopt};
  backbone.model = roberta_task_model(options, head);
  backbone.description = "architecture and tokenizer of " + directory + ", randomly initialised";
  return backbone;
}

std::shared_ptr<Tokenizer> roberta_base_tokenizer(const BackboneContext& context) {
  const fs::path dir = fs::path(context.data_root) / "tokenizers" / "roberta-base";
  TORCH_CHECK(fs::exists(dir / "vocab.json") && fs::exists(dir / "merges.txt"),
              "backbone: roberta-base's tokenizer files (vocab.json, merges.txt) are not in ", dir.string(),
              "; set CAPABOOST_DATA_DIR (or --data-root) to a folder with tokenizers/roberta-base/");
  return load_tokenizer(dir.string());
}

Backbone random_roberta(const RobertaOptions& shape, const std::string& what, const TaskHead& head,
                        const BackboneContext& context) {
  Backbone backbone;
  backbone.processor = {roberta_base_tokenizer(context), 0, std::nullopt};
  auto options = shape;
  options.vocab_size(backbone.processor.tokenizer->vocab_size());
  backbone.processor.max_length = options.max_length();
  backbone.model = roberta_task_model(options, head);
  backbone.description = what + ", randomly initialised, roberta-base tokenizer";
  return backbone;
}

[[maybe_unused]] const bool registered =
    register_architecture({"roberta", load_roberta_backbone, random_roberta_like}) &&
    register_backbone({"roberta-base", "the pre-trained roberta-base checkpoint in $CAPABOOST_CHECKPOINTS/roberta-base",
                       [](const TaskHead& head, const BackboneContext&) {
                         return load_roberta_backbone(
                             downloaded_checkpoint("roberta-base", "roberta-base", {"config.json", "model.safetensors", "vocab.json",
                                                                    "merges.txt"}),
                             head);
                       }}) &&
    register_backbone({"roberta-base-random", "RoBERTa-base's shape (12×768), random weights",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_roberta(RobertaOptions(), "RoBERTa-base shape (12×768)", head, context);
                       }}) &&
    register_backbone({"tiny-random", "a 2-layer, 32-wide RoBERTa with random weights (tests)",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_roberta(RobertaOptions()
                                                   .hidden_size(32)
                                                   .num_hidden_layers(2)
                                                   .num_attention_heads(4)
                                                   .intermediate_size(64)
                                                   .max_position_embeddings(130),
                                               "tiny RoBERTa (2×32)", head, context);
                       }});

}  // namespace
}  // namespace capaboost
