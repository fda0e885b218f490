#pragma once
// RoBERTa's backbone loaders (registered in roberta_backbones.cpp), for backbones built on them.

#include <string>

#include "backbones/backbone_registry.h"
#include "models/roberta_config.h"

namespace capaboost {

/// The longest token sequence a RoBERTa of `options` embeds (positions start after the padding id).
int64_t roberta_max_length(const RobertaOptions& options);

/// A Hugging Face-layout RoBERTa checkpoint with a fresh `head` and the tokenizer beside it.
Backbone load_roberta_backbone(const std::string& directory, const TaskHead& head);

/// The architecture and tokenizer of the checkpoint in `directory`, with random weights.
Backbone random_roberta_like(const std::string& directory, const TaskHead& head);

}  // namespace capaboost
