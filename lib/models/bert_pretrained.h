#pragma once
// BERT-family checkpoints in the Hugging Face layout (config.json + model.safetensors): the loading rules
// BERT and RoBERTa share, BERT's own task models, and the span head and bare encoder of either family.
// RoBERTa's classifier and MLM model load through models/roberta_pretrained.h.
//
//   auto [model, report] = load_bert_for_sequence_classification(checkpoint_root + "/minilm", 2);
//   …attach tuners, train…
//   save_pretrained(*model, "out/run-42");

#include <torch/torch.h>

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/bert_for_masked_lm.h"
#include "models/bert_for_question_answering.h"
#include "models/bert_for_sequence_classification.h"
#include "models/pretrained_directory.h"

namespace capaboost {

/// How checkpoint names map onto a `family` model, as transformers' from_pretrained does it: the base
/// prefix ("bert." / "roberta.") is added or removed as needed; the int64 `embeddings.position_ids` /
/// `token_type_ids` buffers some versions save are accepted and ignored. `head_missing_ok` allows a
/// checkpoint without the task head (a pre-trained encoder: the head keeps its fresh initialisation, as
/// in transformers, and is listed in LoadReport::missing). Pre-training heads (BERT's `cls.*`, RoBERTa's
/// `lm_head.*`), a pooler the model lacks and a task head the model lacks (`classifier.*`, `qa_outputs.*`)
/// are accepted and listed as unexpected. Anything else missing or unexpected is an error.
StateDictLoadOptions bert_family_load_options(BertFamily family, bool head_missing_ok);

/// The config.json of `dir` read as the family its model_type names ("bert" or "roberta").
BertOptions load_bert_family_config_of(const std::string& dir);

/// BertForSequenceClassification from `dir`. `num_labels` overrides the config (a new classifier for a
/// new task; label names reset when the count changes). A checkpoint without a pooler (one saved by a
/// span or MLM model) leaves the pooler fresh, listed as missing, as transformers does.
Pretrained<BertForSequenceClassification> load_bert_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// The span model of the family `dir`'s config names: a pre-trained encoder gets a fresh span head
/// (listed as missing), a question-answering checkpoint loads whole.
Pretrained<BertForQuestionAnswering> load_bert_family_for_question_answering(const std::string& dir);

/// BertForMaskedLM from `dir`: encoder and `cls.predictions` head must both be there (the tied decoder
/// tensors and a next-sentence head `cls.seq_relationship.*` are ignored, a pooler accepted and ignored).
Pretrained<BertForMaskedLM> load_bert_for_masked_lm(const std::string& dir);

/// The bare encoder of the family `dir`'s config names (with or without a pooler, as transformers'
/// add_pooling_layer).
Pretrained<BertModel> load_bert_family_model(const std::string& dir, bool add_pooling_layer = false);

/// Writes config.json and model.safetensors into `dir` (created if needed) in the layout transformers
/// reads with from_pretrained. Tuner parameters are left out unless `include_tuners`.
void save_pretrained(BertForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners = false);
/// The span model; its config names the family's architecture (BertForQuestionAnswering or
/// RobertaForQuestionAnswering).
void save_pretrained(BertForQuestionAnsweringImpl& model, const std::string& dir, bool include_tuners = false);
/// The bare encoder (BertModel or RobertaModel by its family).
void save_pretrained(BertModelImpl& model, const std::string& dir, bool include_tuners = false);
/// The tied decoder is written once, as the word embeddings (transformers omits cls.predictions.decoder.*).
void save_pretrained(BertForMaskedLMImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
