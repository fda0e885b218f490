#include "metrics/squad_postprocess.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace capaboost {
namespace {

struct Candidate {
  CharSpan span;  // characters of the context; {0, 0} for the null answer
  double score = 0;
  double start_logit = 0, end_logit = 0;
};

// Indices of the n largest values, largest first (numpy's argsort()[-1:-n-1:-1]; ties, which float logits
// almost never have, go to the later index as there).
std::vector<int64_t> top_indices(const std::vector<float>& values, int64_t n) {
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  const auto k = std::min<size_t>(static_cast<size_t>(n), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](int64_t a, int64_t b) { return values[a] != values[b] ? values[a] > values[b] : a > b; });
  order.resize(k);
  return order;
}

}  // namespace

std::string code_point_substr(const std::string& text, int64_t begin, int64_t end) {
  size_t byte = 0, byte_begin = text.size(), byte_end = text.size();
  int64_t index = 0;
  for (; byte <= text.size(); ++byte) {
    const bool boundary = byte == text.size() || (static_cast<unsigned char>(text[byte]) & 0xC0) != 0x80;
    if (!boundary) continue;
    if (index == begin) byte_begin = byte;
    if (index == end) {
      byte_end = byte;
      break;
    }
    ++index;
  }
  return byte_begin >= byte_end ? std::string() : text.substr(byte_begin, byte_end - byte_begin);
}

SquadAnswers postprocess_squad(const std::vector<SquadQuestion>& questions, const std::vector<SquadFeature>& features,
                               const std::vector<SpanScores>& scores, const SquadPostprocessOptions& options) {
  TORCH_CHECK(features.size() == scores.size(), "postprocess_squad: ", scores.size(), " score rows for ",
              features.size(), " features");
  std::vector<std::vector<size_t>> features_of(questions.size());
  for (size_t f = 0; f < features.size(); ++f) {
    const auto q = features[f].question;
    TORCH_CHECK(q >= 0 && q < static_cast<int64_t>(questions.size()), "postprocess_squad: feature ", f,
                " belongs to question ", q, " of ", questions.size());
    TORCH_CHECK(scores[f].start.size() == features[f].input_ids.size() && scores[f].end.size() == features[f].input_ids.size(),
                "postprocess_squad: feature ", f, " has ", features[f].input_ids.size(), " tokens but ",
                scores[f].start.size(), " start and ", scores[f].end.size(), " end logits");
    features_of[static_cast<size_t>(q)].push_back(f);
  }
  SquadAnswers answers;
  for (size_t q = 0; q < questions.size(); ++q) {
    const SquadQuestion& question = questions[q];
    std::vector<Candidate> candidates;
    std::optional<Candidate> null_answer;
    for (const size_t f : features_of[q]) {
      const auto& offsets = features[f].offsets;
      const auto& start = scores[f].start;
      const auto& end = scores[f].end;
      const double null_score = static_cast<double>(start[0]) + end[0];
      if (!null_answer || null_answer->score > null_score) null_answer = Candidate{{0, 0}, null_score, start[0], end[0]};
      const auto starts = top_indices(start, options.n_best());
      const auto ends = top_indices(end, options.n_best());
      for (const int64_t s : starts) {
        for (const int64_t e : ends) {
          // Only spans of context tokens, in order, at most max_answer_length tokens long.
          if (offsets[s].first < 0 || offsets[e].first < 0) continue;
          if (e < s || e - s + 1 > options.max_answer_length()) continue;
          candidates.push_back({{offsets[s].first, offsets[e].second}, static_cast<double>(start[s]) + end[e], start[s], end[e]});
        }
      }
    }
    if (options.with_no_answer() && null_answer) candidates.push_back(*null_answer);
    // Python's sorted(reverse=True) is stable: equal scores keep the order they were found in.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (candidates.size() > static_cast<size_t>(options.n_best())) candidates.resize(static_cast<size_t>(options.n_best()));
    const auto text_of = [&](const Candidate& c) { return code_point_substr(question.context, c.span.first, c.span.second); };
    // The best candidate with a text: a span whose tokens were all trimmed spaces has none, and neither
    // has the null answer. Without one, Hugging Face answers "empty" with score 0.
    const Candidate* best = nullptr;
    std::string best_text = "empty";
    for (const auto& candidate : candidates) {
      std::string text = text_of(candidate);
      if (!text.empty()) {
        best = &candidate;
        best_text = std::move(text);
        break;
      }
    }
    if (!options.with_no_answer()) {
      // v1.1 answers with the top candidate, even one without text, unless it is the only one.
      const std::string top = candidates.empty() ? "" : text_of(candidates.front());
      answers.predictions[question.id] = top.empty() && candidates.size() <= 1 ? "empty" : top;
      continue;
    }
    const double best_score = best ? best->start_logit + best->end_logit : 0.0;
    const double diff = null_answer->score - best_score;
    answers.null_score_diffs.emplace_back(question.id, diff);
    answers.predictions[question.id] = diff > options.null_score_diff_threshold() ? "" : best_text;
  }
  return answers;
}

}  // namespace capaboost
