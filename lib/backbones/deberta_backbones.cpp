// DeBERTa-v2/v3 as a backbone plugin: Hugging Face checkpoints of model_type "deberta-v2", the downloaded
// deberta-v3-base, and randomly initialised DeBERTa shapes for baselines, speed runs and tests.
//
//   model: deberta-v3-base          microsoft/deberta-v3-base in $CAPABOOST_CHECKPOINTS/deberta-v3-base
//   model: deberta-v3-base-random   DeBERTaV3-base's shape (12×768, 128k vocabulary), random weights
//   model: deberta-tiny-random      2 layers × 32 wide, random weights (tests)
//   model: /path/to/checkpoint      any directory whose config.json says model_type "deberta-v2"
//
// The genuine 128k spm.model cannot be fetched offline, so the random shapes read text with roberta-base's
// tokenizer (ids < 50265 fit every DeBERTa vocabulary); the model does not depend on which tokenizer made
// its ids, and the 128k embedding keeps parameter counts those of DeBERTaV3-base.

#include <filesystem>

#include "backbones/backbone_registry.h"
#include "models/deberta_v2_pretrained.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

// Relative attention has no position table to run out of; 512 is what DeBERTaV3's tokenizer truncates
// to (model_max_length) and the length it was pre-trained on.
int64_t deberta_max_length(const DebertaV2Options& options) { return options.max_position_embeddings(); }

TaskModelPtr deberta_task_model(DebertaV2Options options, const TaskHead& head) {
  switch (head.kind) {
    case TaskHead::Kind::kSequenceClassification:
      options.num_labels(head.num_labels).label_names({});
      return DebertaV2ForSequenceClassification(options).ptr();
    case TaskHead::Kind::kSpan:
      return DebertaV2ForQuestionAnswering(options).ptr();
  }
  TORCH_CHECK(false, "DeBERTa backbones: unknown task head");
}

Backbone load_deberta_backbone(const std::string& directory, const TaskHead& head) {
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);  // spm.model with DeBERTa's [CLS]/[SEP] convention
  if (head.kind == TaskHead::Kind::kSpan) {
    auto loaded = load_deberta_v2_for_question_answering(directory);
    backbone.processor = {tokenizer, deberta_max_length(loaded.model->options), std::nullopt};
    backbone.model = loaded.model.ptr();
  } else {
    auto loaded = load_deberta_v2_for_sequence_classification(directory, head.num_labels);
    backbone.processor = {tokenizer, deberta_max_length(loaded.model->options), std::nullopt};
    backbone.model = loaded.model.ptr();
  }
  backbone.pretrained = true;
  backbone.description = "checkpoint " + directory;
  backbone.checkpoint_directory = directory;
  return backbone;
}

Backbone random_deberta_like(const std::string& directory, const TaskHead& head) {
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);
  auto options = load_deberta_v2_config((fs::path(directory) / kConfigFileName).string());
  backbone.processor = {tokenizer, deberta_max_length(options), std::nullopt};
  backbone.model = deberta_task_model(options, head);
  backbone.description = "architecture and tokenizer of " + directory + ", randomly initialised";
  return backbone;
}

Backbone random_deberta(DebertaV2Options shape, const std::string& what, const TaskHead& head,
                        const BackboneContext& context) {
  const fs::path tokenizer_dir = fs::path(context.data_root) / "tokenizers" / "roberta-base";
  TORCH_CHECK(fs::exists(tokenizer_dir / "vocab.json") && fs::exists(tokenizer_dir / "merges.txt"),
              "backbone: roberta-base's tokenizer files (vocab.json, merges.txt) are not in ", tokenizer_dir.string(),
              "; set CAPABOOST_DATA_DIR (or --data-root) to a folder with tokenizers/roberta-base/");
  Backbone backbone;
  backbone.processor.tokenizer = load_tokenizer(tokenizer_dir.string());
  TORCH_CHECK(backbone.processor.tokenizer->vocab_size() <= shape.vocab_size(), "backbone ", what,
              ": the tokenizer's vocabulary does not fit the embedding");
  shape.pad_token_id(backbone.processor.tokenizer->pad_id());
  backbone.processor.max_length = deberta_max_length(shape);
  backbone.model = deberta_task_model(shape, head);
  backbone.description = what + ", randomly initialised, roberta-base tokenizer";
  return backbone;
}

[[maybe_unused]] const bool registered_deberta_backbones =
    register_architecture({"deberta-v2", load_deberta_backbone, random_deberta_like}) &&
    register_backbone(
        {"deberta-v3-base",
         "the pre-trained microsoft/deberta-v3-base checkpoint in $CAPABOOST_CHECKPOINTS/deberta-v3-base",
         [](const TaskHead& head, const BackboneContext&) {
           return load_deberta_backbone(
               downloaded_checkpoint("deberta-v3-base", "microsoft/deberta-v3-base",
                                     {"config.json", "pytorch_model.bin", "spm.model"}),
               head);
         }}) &&
    register_backbone({"deberta-v3-base-random", "DeBERTaV3-base's shape (12×768, 128k vocabulary), random weights",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_deberta(DebertaV2Options(), "DeBERTaV3-base shape (12×768)", head, context);
                       }}) &&
    register_backbone({"deberta-tiny-random", "a 2-layer, 32-wide DeBERTaV3-style model with random weights (tests)",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_deberta(DebertaV2Options()
                                                   .vocab_size(50265)
                                                   .hidden_size(32)
                                                   .num_hidden_layers(2)
                                                   .num_attention_heads(4)
                                                   .intermediate_size(64)
                                                   .max_position_embeddings(128)
                                                   .position_buckets(16),
                                               "tiny DeBERTaV3-style model (2×32)", head, context);
                       }});

}  // namespace
}  // namespace capaboost
