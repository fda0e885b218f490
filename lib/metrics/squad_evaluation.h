#pragma once
// A SQuAD file's predictions scored as the official scripts score them, with the same keys:
//   evaluate-v1.1.py: {"exact_match", "f1"}, over every question (an unanswered one scores 0);
//   evaluate-v2.0.py: {"exact", "f1", "total", "HasAns_…", "NoAns_…"}, and with no-answer
//   probabilities "best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh" — the best
//   threshold chosen on the scored file itself, so those two are oracle numbers.
// Values are percentages (×100), as the scripts print them.

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/squad_dataset.h"

namespace capaboost {

/// Question id → predicted answer text ("" predicts no answer).
using SquadPredictions = std::map<std::string, std::string>;

/// Question id → no-answer probability, in the order of its file (ties in the best-threshold search
/// keep that order, as Python's stable sort does).
using SquadNoAnswerProbabilities = std::vector<std::pair<std::string, double>>;

/// evaluate-v1.1.py. `unanswered` (may be null) receives the ids without a prediction.
nlohmann::ordered_json evaluate_squad_v1(const SquadDataset& dataset, const SquadPredictions& predictions,
                                         std::vector<std::string>* unanswered = nullptr);

/// evaluate-v2.0.py with its --na-prob-thresh (`na_threshold`, default 1.0: a question counts as
/// answered "no answer" when its probability exceeds it). Without `na_probs` every probability is 0
/// and no best threshold is searched. Fails when a question of the file has no prediction, as the
/// official script does (a KeyError in its HasAns/NoAns split), or has no probability when given.
nlohmann::ordered_json evaluate_squad_v2(const SquadDataset& dataset, const SquadPredictions& predictions,
                                         const std::optional<SquadNoAnswerProbabilities>& na_probs = std::nullopt,
                                         double na_threshold = 1.0);

/// The JSON text the official script of the dataset's version prints: v1.1 on one line, as
/// json.dumps(…); v2.0 with indent=2.
std::string format_squad_evaluation(const nlohmann::ordered_json& evaluation, int major_version);

}  // namespace capaboost
