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

/// The pilot variants of `profile`, each one change to its recipe with the same corpus, tokenizer,
/// blocks, schedule and held-out evaluation, so their curves compare at equal data and steps (issue
/// #14). Empty for a profile without pilots.
std::vector<std::string> backbone_pilots(const std::string& profile);

/// The recipe of pilot `pilot` of `profile`, cached as profile "<profile>+<pilot>"; throws listing the
/// profile's pilots otherwise.
BackboneRecipe backbone_pilot_recipe(const std::string& profile, const std::string& pilot);

}  // namespace capaboost
