#pragma once
// Which epoch a run reports, a parameter of the text tasks (`epoch_selection`):
//   best  the epoch with the best eval score, scored on test (ProPETL's protocol; the default, and what
//         every run recorded before the parameter existed did);
//   last  no model selection: only the last epoch is scored and reported, as a script that evaluates the
//         model it ends training with does (AdaLoRA's GLUE scripts, run_qa.py of Table 4). Where eval is
//         the test set (`protocol: adalora`, SQuAD's `official`), `best` picks the epoch on the test set.
// The learning rate is still chosen per cell by the report, on the eval score of the reported epoch.

#include <string>
#include <vector>

#include "params/parameter.h"
#include "params/parameters.h"

namespace capaboost {

inline std::vector<std::string> epoch_selection_names() { return {"best", "last"}; }

inline ParameterDef epoch_selection_parameter() {
  return ParameterDef::text("epoch_selection",
                            "which epoch is reported: best (chosen on eval) or last (no model selection)")
      .defaults_to("best")
      .one_of(epoch_selection_names)
      .unkeyed_at_default();
}

/// Whether `config`'s epoch_selection asks for the last epoch only.
inline bool reports_last_epoch(const Parameters& config) { return config.get<std::string>("epoch_selection") == "last"; }

}  // namespace capaboost
