#pragma once
// RoBERTa checkpoints in the Hugging Face layout: a directory with config.json and model.safetensors.
//
//   auto [model, report] = load_roberta_for_sequence_classification("checkpoints/roberta-base", 2);
//   …attach tuners, train…
//   save_pretrained(*model, "out/run-42");   // backbone + head; tuners only when asked

#include <torch/torch.h>

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/pretrained_directory.h"
#include "models/roberta.h"
#include "models/roberta_for_masked_lm.h"

namespace capaboost {

/// How checkpoint names map onto RoBERTa modules, as transformers' from_pretrained does it: the
/// `roberta.` base prefix is added or removed as needed; the int64 `embeddings.position_ids` buffer that
/// 4.30.2 saves is accepted and ignored. `head_missing_ok` allows a checkpoint without the
/// task head (a pre-trained encoder: the head keeps its fresh initialisation, as in
/// transformers, and is listed in LoadReport::missing). Pre-training heads (`lm_head.*`, `pooler.*`) and a
/// task head the model lacks (`classifier.*`, `qa_outputs.*`) are accepted and listed as unexpected. Anything else that is
/// missing or unexpected is an error.
StateDictLoadOptions roberta_load_options(bool head_missing_ok);

/// RobertaForSequenceClassification from `dir`. `num_labels` overrides the config (a new head for a
/// new task; label names reset to LABEL_<i> when the count changes).
Pretrained<RobertaForSequenceClassification> load_roberta_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// RobertaForQuestionAnswering from `dir`: a pre-trained encoder gets a fresh span head (listed as
/// missing), a question-answering checkpoint loads whole.
Pretrained<RobertaForQuestionAnswering> load_roberta_for_question_answering(const std::string& dir);

/// RobertaForMaskedLM from `dir`: the encoder and the LM head must both be there (a pooler is accepted
/// and ignored; explicit `lm_head.decoder.*` tensors, which PyTorch-format conversions carry, are ignored
/// because the decoder is tied to the word embeddings and `lm_head.bias`).
Pretrained<RobertaForMaskedLM> load_roberta_for_masked_lm(const std::string& dir);

/// The bare encoder from `dir` (with or without a pooler, as transformers' add_pooling_layer).
Pretrained<RobertaModel> load_roberta_model(const std::string& dir, bool add_pooling_layer = false);

/// Writes config.json and model.safetensors into `dir` (created if needed) in the layout transformers
/// reads with from_pretrained: names as its state dict, "format": "pt" metadata. Tuner parameters are
/// left out unless `include_tuners` (then the file holds extra names transformers would not expect).
void save_pretrained(RobertaForSequenceClassificationImpl& model, const std::string& dir,
                     bool include_tuners = false);
void save_pretrained(RobertaForQuestionAnsweringImpl& model, const std::string& dir, bool include_tuners = false);
void save_pretrained(RobertaModelImpl& model, const std::string& dir, bool include_tuners = false);
/// The tied decoder is written once, as the word embeddings (transformers omits lm_head.decoder.*).
void save_pretrained(RobertaForMaskedLMImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
