#include "metrics/squad_evaluation.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>

#include "metrics/squad_metrics.h"

namespace capaboost {

nlohmann::ordered_json evaluate_squad_v1(const SquadDataset& dataset, const SquadPredictions& predictions,
                                         std::vector<std::string>* unanswered) {
  double exact = 0, f1 = 0;
  for (const auto& question : dataset.questions) {
    const auto prediction = predictions.find(question.id);
    if (prediction == predictions.end()) {
      if (unanswered) unanswered->push_back(question.id);
      continue;
    }
    // max over the gold answers; a question without any (not a v1.1 file) scores 0, as max() of
    // nothing would fail in the script.
    double best_exact = 0, best_f1 = 0;
    for (const auto& gold : question.answers) {
      best_exact = std::max(best_exact, squad_exact_match(prediction->second, gold.text) ? 1.0 : 0.0);
      best_f1 = std::max(best_f1, squad_f1_v1(prediction->second, gold.text));
    }
    exact += best_exact;
    f1 += best_f1;
  }
  const double total = static_cast<double>(dataset.questions.size());
  TORCH_CHECK(total > 0, dataset.source, ": no questions to score");
  nlohmann::ordered_json result;
  result["exact_match"] = 100.0 * exact / total;
  result["f1"] = 100.0 * f1 / total;
  return result;
}

namespace {

struct RawScore {
  double exact = 0, f1 = 0;
};

// make_eval_dict over `ids` (all scored questions when null).
nlohmann::ordered_json eval_dict(const std::map<std::string, RawScore>& scores, const std::vector<std::string>& ids) {
  double exact = 0, f1 = 0;
  for (const auto& id : ids) {
    exact += scores.at(id).exact;
    f1 += scores.at(id).f1;
  }
  const double total = static_cast<double>(ids.size());
  nlohmann::ordered_json result;
  result["exact"] = 100.0 * exact / total;
  result["f1"] = 100.0 * f1 / total;
  result["total"] = ids.size();
  return result;
}

// find_best_thresh: walk the questions by rising no-answer probability, predicting an answer for
// those at or below the threshold; start from "no answer everywhere" (every unanswerable right).
std::pair<double, double> best_threshold(const SquadPredictions& predictions,
                                         const std::map<std::string, double>& raw,
                                         const SquadNoAnswerProbabilities& na_probs,
                                         const std::map<std::string, bool>& has_answer) {
  double score = 0;
  for (const auto& [id, has] : has_answer) score += has ? 0 : 1;
  double best = score, threshold = 0.0;
  SquadNoAnswerProbabilities order = na_probs;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [id, probability] : order) {
    const auto scored = raw.find(id);
    if (scored == raw.end()) continue;
    score += has_answer.at(id) ? scored->second : (predictions.at(id).empty() ? 0.0 : -1.0);
    if (score > best) {
      best = score;
      threshold = probability;
    }
  }
  return {100.0 * best / static_cast<double>(raw.size()), threshold};
}

}  // namespace

nlohmann::ordered_json evaluate_squad_v2(const SquadDataset& dataset, const SquadPredictions& predictions,
                                         const std::optional<SquadNoAnswerProbabilities>& na_probs,
                                         double na_threshold) {
  TORCH_CHECK(!dataset.questions.empty(), dataset.source, ": no questions to score");
  std::map<std::string, bool> has_answer;
  std::vector<std::string> has_ids, no_ids, all_ids;
  std::map<std::string, RawScore> raw;
  std::map<std::string, double> probability;
  if (na_probs) {
    for (const auto& [id, p] : *na_probs) probability[id] = p;
  }
  for (const auto& question : dataset.questions) {
    const bool has = !question.answers.empty();
    has_answer[question.id] = has;
    (has ? has_ids : no_ids).push_back(question.id);
    const auto prediction = predictions.find(question.id);
    TORCH_CHECK(prediction != predictions.end(), dataset.source, ": no prediction for question '", question.id,
                "' (the official v2.0 script fails on a missing prediction too: predict \"\" for no answer)");
    // Gold answers that normalise to nothing do not count; an unanswerable question's only answer is "".
    std::vector<std::string> golds;
    for (const auto& answer : question.answers) {
      if (!normalize_squad_answer(answer.text).empty()) golds.push_back(answer.text);
    }
    if (golds.empty()) golds.push_back("");
    RawScore score;
    for (const auto& gold : golds) {
      score.exact = std::max(score.exact, squad_exact_match(prediction->second, gold) ? 1.0 : 0.0);
      score.f1 = std::max(score.f1, squad_f1_v2(prediction->second, gold));
    }
    raw[question.id] = score;
    all_ids.push_back(question.id);
    if (na_probs) {
      TORCH_CHECK(probability.count(question.id), "no no-answer probability for question '", question.id,
                  "' of ", dataset.source);
    }
  }
  // apply_no_ans_threshold: a question whose probability exceeds the threshold is answered "no answer".
  std::map<std::string, RawScore> thresholded = raw;
  for (auto& [id, score] : thresholded) {
    const double p = na_probs ? probability.at(id) : 0.0;
    if (p > na_threshold) score.exact = score.f1 = has_answer.at(id) ? 0.0 : 1.0;
  }
  nlohmann::ordered_json result = eval_dict(thresholded, all_ids);
  auto merge = [&](const std::vector<std::string>& ids, const std::string& prefix) {
    if (ids.empty()) return;
    const auto subset = eval_dict(thresholded, ids);
    for (const auto& [key, value] : subset.items()) result[prefix + "_" + key] = value;
  };
  merge(has_ids, "HasAns");
  merge(no_ids, "NoAns");
  if (na_probs) {
    std::map<std::string, double> exact, f1;
    for (const auto& [id, score] : raw) {
      exact[id] = score.exact;
      f1[id] = score.f1;
    }
    const auto [best_exact, exact_threshold] = best_threshold(predictions, exact, *na_probs, has_answer);
    const auto [best_f1, f1_threshold] = best_threshold(predictions, f1, *na_probs, has_answer);
    result["best_exact"] = best_exact;
    result["best_exact_thresh"] = exact_threshold;
    result["best_f1"] = best_f1;
    result["best_f1_thresh"] = f1_threshold;
  }
  return result;
}

std::string format_squad_evaluation(const nlohmann::ordered_json& evaluation, int major_version) {
  if (major_version != 1) return evaluation.dump(2);
  // json.dumps' default separators: ", " and ": ".
  std::string out = "{";
  for (const auto& [key, value] : evaluation.items()) {
    out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", nlohmann::json(key).dump(), value.dump());
  }
  return out + "}";
}

}  // namespace capaboost
