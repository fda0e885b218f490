#pragma once
// The backbones a spec's `model:` can name, turned into a sequence classifier and its tokenizer.
//
//   model: roberta-base             the pre-trained checkpoint in $CAPABOOST_CHECKPOINTS/roberta-base
//   model: roberta-base-random      RoBERTa-base's shape, random weights, roberta-base's tokenizer
//   model: mini                     the suite's offline pre-trained encoder (built on first use, cached)
//   model: mini-random              mini's architecture and tokenizer, random weights (the baseline)
//   model: smoke, smoke-random      the same for the seconds-long smoke recipe
//   model: tiny-random              2 layers × 32 wide, random weights, roberta-base's tokenizer (tests)
//   model: /path/to/checkpoint      a Hugging Face-layout directory (config.json, model.safetensors,
//                                   tokenizer files), e.g. a downloaded roberta-base

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/roberta.h"
#include "tokenizers/tokenizer.h"

namespace capaboost::harness {

/// Where backbones find their files.
struct BackboneContext {
  std::string data_root;  ///< the resolved data root; random backbones take roberta-base's tokenizer from <root>/tokenizers/roberta-base
};

struct Backbone {
  RobertaForSequenceClassification model{nullptr};
  std::shared_ptr<Tokenizer> tokenizer;
  bool pretrained = false;
  std::string description;  ///< for logs and run records: what was loaded from where
};

/// Builds backbone `name` with a fresh `num_labels` head. Random weights come from the current torch
/// seed. Unknown names that are not checkpoint directories are an error listing the known names.
Backbone load_backbone(const std::string& name, int64_t num_labels, const BackboneContext& context);

/// The named (non-directory) backbones.
std::vector<std::string> backbone_names();

/// The backbone recipe profile (`mini`, `smoke`) a model name builds on: the name itself or its
/// `-random` twin. Empty for every other model.
std::optional<std::string> offline_backbone_profile(const std::string& model);

/// For the suite's own encoders (`mini`, `smoke` and their `-random` twins): "recipe:" + SHA-256 of the
/// recipe that builds them, so run keys change when the recipe does. Empty for every other model (or
/// no `model` parameter): a downloaded checkpoint is identified by its name, as before.
std::string offline_backbone_fingerprint(const nlohmann::json& parameters);

}  // namespace capaboost::harness
