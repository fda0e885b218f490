#pragma once
// CapaBoost's run parameters, declared once and shared by every method it can wrap (LoRA, adapters,
// and any variant that builds on BranchStack):
//   branches   d, the number of weight-tied branches (1: the plain tuner)
//   mask       mask kind (capaboost/mask.h); by default diff when d > 1, else none
//   density    kept fraction of each mask
//   nm         the N:M pattern of the nm kind
//   mask_seed  seed of the masks, fixed across run seeds unless a spec sets it (as the reference code,
//              whose three seeds share one set of masks)

#include "capaboost/branch_stack.h"
#include "params/parameter.h"
#include "params/parameters.h"

namespace capaboost {

/// The definitions, owned by "CapaBoost".
ParameterList capaboost_parameters();

/// The options a resolved configuration holding capaboost_parameters() describes.
CapaBoostOptions capaboost_options(const Parameters& config);

}  // namespace capaboost
