#pragma once
// RoBERTa's classifier and MLM model from checkpoints in the Hugging Face layout (config.json and
// model.safetensors). The loading rules, the span model and the bare encoder are the BERT family's
// (models/bert_pretrained.h).
//
//   auto [model, report] = load_roberta_for_sequence_classification("checkpoints/roberta-base", 2);
//   …attach tuners, train…
//   save_pretrained(*model, "out/run-42");   // backbone + head; tuners only when asked

#include <torch/torch.h>

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/bert_pretrained.h"
#include "models/pretrained_directory.h"
#include "models/roberta.h"
#include "models/roberta_for_masked_lm.h"

namespace capaboost {

/// RobertaForSequenceClassification from `dir`. `num_labels` overrides the config (a new head for a
/// new task; label names reset to LABEL_<i> when the count changes).
Pretrained<RobertaForSequenceClassification> load_roberta_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// RobertaForMaskedLM from `dir`: the encoder and the LM head must both be there (a pooler is accepted
/// and ignored; explicit `lm_head.decoder.*` tensors, which PyTorch-format conversions carry, are ignored
/// because the decoder is tied to the word embeddings and `lm_head.bias`).
Pretrained<RobertaForMaskedLM> load_roberta_for_masked_lm(const std::string& dir);

/// Writes config.json and model.safetensors into `dir` (created if needed) in the layout transformers
/// reads with from_pretrained: names as its state dict, "format": "pt" metadata. Tuner parameters are
/// left out unless `include_tuners` (then the file holds extra names transformers would not expect).
void save_pretrained(RobertaForSequenceClassificationImpl& model, const std::string& dir,
                     bool include_tuners = false);
/// The tied decoder is written once, as the word embeddings (transformers omits lm_head.decoder.*).
void save_pretrained(RobertaForMaskedLMImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
