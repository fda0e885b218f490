#pragma once
// The named backbone recipes: what `capaboost backbone --profile <name>` and `make backbone-<name>`
// build. The model size and step count of `mini` were chosen by measurement on the project's 2-core CPU
// so that corpus, tokenizer and pre-training together stay within 30 minutes (numbers in the .cpp).

#include <string>
#include <vector>

#include "pretrain/backbone_builder.h"

namespace capaboost {

/// The recipe of `profile` ("mini", "mini-deberta" or "smoke"); throws listing the known names otherwise.
BackboneRecipe backbone_recipe(const std::string& profile);

/// Names backbone_recipe accepts.
std::vector<std::string> backbone_profiles();

}  // namespace capaboost
