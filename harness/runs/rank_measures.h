#pragma once
// Measures that need no training data: the rank of CapaBoost's weight update on random nonzero
// factors (the paper's Table 1 pattern) and the Monte Carlo check of Theorem 1.

#include "runs/measure_registry.h"

#include <vector>

namespace capaboost::harness {

/// `rank`: builds the model named by `model` ("site-<out>x<in>": one linear site named "site"),
/// attaches `method`, draws every tuner factor from N(0, 1) (a trained update is nonzero; at
/// initialisation LoRA's B = 0), and measures each site's ΔW rank and the parameter counts.
/// Metrics: rank (mean over sites), rank_min, params_dense, params_effective.
///
/// `theorem1`: `trials` draws of X = X_col X_row and Y = Y_col Y_row with Gaussian n×r / r×n factors
/// (n = `dim`, r = `rank`). Metrics: rank_mean, rank_min, rank_max, and additive_fraction, the share
/// of trials with rank(X + Y) = min(2r, n).
std::vector<MeasureSpec> builtin_rank_measures();

}  // namespace capaboost::harness
