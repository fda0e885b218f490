#pragma once
// DeBERTa-v2/v3 checkpoints in the Hugging Face layout (config.json, model.safetensors), e.g. a
// downloaded microsoft/deberta-v3-base.
//
//   auto [model, report] = load_deberta_v2_for_sequence_classification("checkpoints/deberta-v3-base", 3);

#include <optional>
#include <string>

#include "checkpoint/state_dict.h"
#include "models/deberta_v2.h"
#include "models/deberta_v2_for_masked_lm.h"
#include "models/pretrained_directory.h"

namespace capaboost {

/// How checkpoint names map onto DeBERTa modules, as transformers' from_pretrained does it: the
/// `deberta.` prefix is added or removed as needed; the `embeddings.position_ids` buffer 4.30.2 saves is
/// ignored; pre-training heads (`cls.*`, `lm_predictions.*`, `mask_predictions.*`) and heads the model lacks
/// (`pooler.*`, `classifier.*`, `qa_outputs.*`) are accepted and listed as unexpected. `head_prefixes`
/// name the model's own head, which may be missing (a pre-trained encoder: the head keeps its fresh
/// initialisation). Anything else missing or unexpected is an error.
StateDictLoadOptions deberta_v2_load_options(const std::vector<std::string>& head_prefixes);

/// DebertaV2ForSequenceClassification from `dir`; `num_labels` overrides the config (a new head for a
/// new task; label names reset when the count changes).
Pretrained<DebertaV2ForSequenceClassification> load_deberta_v2_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels = std::nullopt);

/// DebertaV2ForQuestionAnswering from `dir`.
Pretrained<DebertaV2ForQuestionAnswering> load_deberta_v2_for_question_answering(const std::string& dir);

/// DebertaV2ForMaskedLM from `dir`: the encoder and "cls.predictions" must both be there (the tied
/// "cls.predictions.decoder.*" are ignored, as transformers re-ties them).
Pretrained<DebertaV2ForMaskedLM> load_deberta_v2_for_masked_lm(const std::string& dir);

/// The bare encoder from `dir`.
Pretrained<DebertaV2Model> load_deberta_v2_model(const std::string& dir);

/// config.json and model.safetensors into `dir`, readable by transformers' from_pretrained; tuner
/// parameters only when `include_tuners`.
void save_pretrained(DebertaV2ForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners = false);
void save_pretrained(DebertaV2ForMaskedLMImpl& model, const std::string& dir, bool include_tuners = false);
void save_pretrained(DebertaV2ModelImpl& model, const std::string& dir, bool include_tuners = false);

}  // namespace capaboost
