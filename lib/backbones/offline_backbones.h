#pragma once
// The suite's own pre-trained encoders as backbones (pretrain/backbone_recipes.h), built on first use
// and cached:
//
//   model: mini                     the offline pre-trained encoder of the `mini` recipe
//   model: mini-random              mini's architecture and tokenizer, random weights (the baseline)
//   model: mini-deberta             the same recipe in DeBERTa-v2 layout (relative attention; Table 3)
//   model: mini-deberta-random      its architecture and tokenizer, random weights
//   model: smoke, smoke-random      the same for the seconds-long smoke recipe
//
// Each loads by the architecture its config.json names (backbones/backbone_registry.h).
//
// Their run-key fingerprint is the recipe's hash, so runs of an encoder built by an older recipe are
// not reused.

#include <optional>
#include <string>

namespace capaboost {

/// The recipe profile (`mini`, `mini-deberta`, `smoke`) a model name builds on: the name itself or its `-random`
/// twin; nullopt for every other model.
std::optional<std::string> offline_backbone_profile(const std::string& model);

}  // namespace capaboost
