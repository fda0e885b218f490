#pragma once
// From a span head's logits to answer texts, as Hugging Face's question-answering examples do it
// (utils_qa.postprocess_qa_predictions): for every question, over all its windows, the n_best highest
// start and end logits are paired into candidate spans inside the context, no longer than
// max_answer_length tokens; the best-scoring candidate (start + end logit) is the answer. For SQuAD
// v2.0 the null answer competes: its score is the lowest CLS start + end logit over the question's
// windows, and the question is answered "" when null score − best span's score exceeds the threshold
// (run_qa's null_score_diff_threshold, 0.0 by default); that difference is kept per question, the
// no-answer score evaluate-v2.0.py can take as its probabilities.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "data/squad_features.h"
#include "metrics/squad_evaluation.h"

namespace capaboost {

struct SquadPostprocessOptions {
  TORCH_ARG(int64_t, n_best) = 20;
  TORCH_ARG(int64_t, max_answer_length) = 30;
  /// SQuAD v2.0: let the null answer compete.
  TORCH_ARG(bool, with_no_answer) = false;
  TORCH_ARG(double, null_score_diff_threshold) = 0.0;
};

/// One feature's logits, one per input id.
struct SpanScores {
  std::vector<float> start, end;
};

struct SquadAnswers {
  SquadPredictions predictions;  ///< question id → answer text ("" = no answer)
  /// v2.0: question id → null score − best span score, in question order (empty for v1.1).
  SquadNoAnswerProbabilities null_score_diffs;
};

/// The answers to `questions` from the logits of their `features` (scores[i] belongs to features[i]).
SquadAnswers postprocess_squad(const std::vector<SquadQuestion>& questions, const std::vector<SquadFeature>& features,
                               const std::vector<SpanScores>& scores, const SquadPostprocessOptions& options);

/// Characters [begin, end) of UTF-8 `text` (Python's text[begin:end] for 0 <= begin <= end).
std::string code_point_substr(const std::string& text, int64_t begin, int64_t end);

}  // namespace capaboost
