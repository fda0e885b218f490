#pragma once
// The regime a report's verdicts hold in, beside the paper's: "not reproduced" on a small encoder at 3
// epochs and one untuned rate is not the paper's claim on RoBERTa-base at 20 epochs with a tuned rate,
// and the claims table says so in one line, and in the verdict where the two differ.
//
// Read off the runs themselves (their resolved configs) and off the spec's paper profile (the spec as
// written): the backbones (`model`), the epochs, whether the learning rate is chosen on eval from a
// grid or fixed per row, and the seeds.

#include "plan/run_config.h"
#include "spec/spec.h"

#include <string>
#include <vector>

namespace capaboost::harness {

struct Regime {
  /// "Regime of these verdicts: backbone minilm (paper: roberta-base); 3 epochs (paper: 10–40); learning
  /// rate fixed per row (paper: chosen on eval from 6); seeds 42–44 (paper: 42–46)." Empty without runs.
  std::string line;
  /// What the verdict carries where the regime differs from the paper's: "minilm, 3 of 10–40 epochs,
  /// rate not tuned"; empty on the paper profile or where nothing differs.
  std::string verdict_suffix;
};

/// The regime of `runs` (one profile's) against `spec`'s paper profile.
Regime describe_regime(const Spec& spec, const std::vector<RunConfig>& runs, const std::string& profile);

}  // namespace capaboost::harness
