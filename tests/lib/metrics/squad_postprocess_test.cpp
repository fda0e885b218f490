#include "metrics/squad_postprocess.h"

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

namespace {

// Context "the world hello" in one window: CLS, a question token, two separators, the three context
// tokens, a separator.
SquadFeature window(int64_t question = 0) {
  SquadFeature f;
  f.question = question;
  f.input_ids = {0, 9, 2, 2, 10, 11, 12, 2};
  f.offsets = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}, {0, 3}, {4, 9}, {10, 15}, {-1, -1}};
  return f;
}

SquadQuestion asked(std::string id) {
  SquadQuestion q;
  q.id = std::move(id);
  q.context = "the world hello";
  return q;
}

SpanScores scores(std::vector<float> start, std::vector<float> end) { return {std::move(start), std::move(end)}; }

}  // namespace

TEST_CASE("the best start + end pair inside the context is the answer", "[metrics][squad]") {
  // The question token has the highest logits but is not context; start 5 + end 6 = 3 + 2.5 beats
  // 5 + 5 = 3 + 1 and the reversed pair 6 → 5 is not a span.
  const auto answers = postprocess_squad({asked("q")}, {window()},
                                         {scores({0, 9, 0, 0, 1, 3, 2, 0}, {0, 9, 0, 0, 0, 1, 2.5, 0})},
                                         SquadPostprocessOptions());
  CHECK(answers.predictions.at("q") == "world hello");
  CHECK(answers.null_score_diffs.empty());
  // max_answer_length 1 leaves single tokens: "hello" (2 + 2.5) beats "world" (3 + 1).
  const auto short_answers = postprocess_squad({asked("q")}, {window()},
                                               {scores({0, 9, 0, 0, 1, 3, 2, 0}, {0, 9, 0, 0, 0, 1, 2.5, 0})},
                                               SquadPostprocessOptions().max_answer_length(1));
  CHECK(short_answers.predictions.at("q") == "hello");
  // n_best 1: the top start and end are the question token's, which is no answer: nothing valid is
  // left and Hugging Face answers "empty".
  const auto none = postprocess_squad({asked("q")}, {window()},
                                      {scores({0, 9, 0, 0, 1, 3, 2, 0}, {0, 9, 0, 0, 0, 1, 2.5, 0})},
                                      SquadPostprocessOptions().n_best(1));
  CHECK(none.predictions.at("q") == "empty");
}

TEST_CASE("answers are chosen across a question's windows", "[metrics][squad]") {
  auto second = window(0);
  second.offsets = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}, {4, 9}, {10, 15}, {-1, -1}, {-1, -1}};
  const auto answers = postprocess_squad(
      {asked("q")}, {window(0), second},
      {scores({0, 0, 0, 0, 2, 0, 0, 0}, {0, 0, 0, 0, 2, 0, 0, 0}), scores({0, 0, 0, 0, 0, 3, 0, 0}, {0, 0, 0, 0, 0, 3, 0, 0})},
      SquadPostprocessOptions());
  CHECK(answers.predictions.at("q") == "hello");  // window 2's token (10, 15): 6 beats window 1's 4
  CHECK_THROWS_WITH(postprocess_squad({asked("q")}, {window()}, {}, SquadPostprocessOptions()),
                    Contains("0 score rows for 1 features"));
}

TEST_CASE("SQuAD v2.0: the null answer wins when its score beats the best span's by more than the threshold",
          "[metrics][squad]") {
  const auto options = SquadPostprocessOptions().with_no_answer(true);
  // Null score: the lowest CLS start + end over windows = min(1 + 1, 3 + 3) = 2. Best span: "world", 1.5 + 1.
  auto second = window(0);
  const std::vector<SquadFeature> features = {window(0), second};
  const std::vector<SpanScores> logits = {scores({1, 0, 0, 0, 0, 1.5, 0, 0}, {1, 0, 0, 0, 0, 1, 0, 0}),
                                          scores({3, 0, 0, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 0, 0, 0})};
  const auto answered = postprocess_squad({asked("q")}, features, logits, options);
  REQUIRE(answered.null_score_diffs.size() == 1);
  CHECK(answered.null_score_diffs[0].first == "q");
  CHECK(answered.null_score_diffs[0].second == Approx(2 - 2.5));
  CHECK(answered.predictions.at("q") == "world");  // −0.5 is not above the threshold 0
  const auto unanswered = postprocess_squad({asked("q")}, features, logits, SquadPostprocessOptions(options).null_score_diff_threshold(-1));
  CHECK(unanswered.predictions.at("q") == "");
  // Nothing valid but the null answer: HF's "empty" at score 0 is the best non-null one.
  const auto only_null = postprocess_squad({asked("q")}, {window()}, {scores({5, 0, 0, 0, 0, 0, 0, 0}, {5, 0, 0, 0, 0, 0, 0, 0})},
                                           SquadPostprocessOptions(options).n_best(1));
  CHECK(only_null.null_score_diffs[0].second == Approx(10.0));
  CHECK(only_null.predictions.at("q") == "");
}

TEST_CASE("code_point_substr slices characters, not bytes", "[metrics][squad]") {
  const std::string text = "caf\xC3\xA9 \xE6\x97\xA5!";  // "café 日!"
  CHECK(code_point_substr(text, 0, 4) == "caf\xC3\xA9");
  CHECK(code_point_substr(text, 5, 6) == "\xE6\x97\xA5");
  CHECK(code_point_substr(text, 6, 7) == "!");
  CHECK(code_point_substr(text, 3, 3).empty());
  CHECK(code_point_substr(text, 5, 99) == "\xE6\x97\xA5!");
}
