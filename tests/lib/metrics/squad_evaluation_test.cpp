// The official scripts' aggregation on hand-worked files, and against an independent Python
// rendering of evaluate-v1.1.py / evaluate-v2.0.py on the real dev set and the v2.0 sample.

#include "metrics/squad_evaluation.h"

#include <catch2/catch.hpp>

#include <fstream>

#include "lib/data/glue_test_support.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
using Catch::Contains;
using Catch::WithinAbs;

namespace {

SquadQuestion question(const std::string& id, std::vector<std::string> golds) {
  SquadQuestion q;
  q.id = id;
  for (auto& text : golds) q.answers.push_back({text, 0});
  return q;
}

// Four questions: a and c answerable, b and d not.
SquadDataset four_questions() {
  SquadDataset dataset;
  dataset.source = "four";
  dataset.version = "v2.0";
  dataset.major_version = 2;
  dataset.questions = {question("a", {"Paris"}), question("b", {}), question("c", {"blue whale"}), question("d", {})};
  return dataset;
}

const SquadPredictions kFourPredictions = {{"a", "Paris"}, {"b", ""}, {"c", "whale"}, {"d", "London"}};

}  // namespace

TEST_CASE("v1.1: max over gold answers, an unanswered question scores 0 of the total", "[metrics][squad]") {
  SquadDataset dataset;
  dataset.version = "1.1";
  dataset.questions = {question("1", {"Denver Broncos", "Broncos"}), question("2", {"cat sat on mat"}),
                       question("3", {"x"})};
  std::vector<std::string> unanswered;
  const auto result = evaluate_squad_v1(dataset, {{"1", "the Broncos"}, {"2", "cat sat"}}, &unanswered);
  CHECK_THAT(result["exact_match"].get<double>(), WithinAbs(100.0 / 3, 1e-12));
  CHECK_THAT(result["f1"].get<double>(), WithinAbs(100.0 * (1 + 2.0 / 3) / 3, 1e-12));
  CHECK(unanswered == std::vector<std::string>{"3"});
  CHECK(format_squad_evaluation(evaluate_squad_v1(dataset, {{"1", "Broncos"}, {"2", "cat sat on mat"}, {"3", "x"}}), 1) ==
        "{\"exact_match\": 100.0, \"f1\": 100.0}");
}

TEST_CASE("v2.0: thresholded scores, HasAns/NoAns splits and the oracle best thresholds", "[metrics][squad]") {
  // No-answer probabilities in file order a .1, b .9, c .4, d .6; threshold .5 turns b and d into
  // no-answer predictions, both right. Raw: a EM 1; b 1 (""); c EM 0, F1 2/3 (whale of blue whale); d 0.
  const SquadNoAnswerProbabilities na = {{"a", 0.1}, {"b", 0.9}, {"c", 0.4}, {"d", 0.6}};
  const auto result = evaluate_squad_v2(four_questions(), kFourPredictions, na, 0.5);
  CHECK(result["exact"].get<double>() == 75.0);
  CHECK_THAT(result["f1"].get<double>(), WithinAbs(100.0 * (3 + 2.0 / 3) / 4, 1e-12));
  CHECK(result["total"].get<int>() == 4);
  CHECK(result["HasAns_exact"].get<double>() == 50.0);
  CHECK_THAT(result["HasAns_f1"].get<double>(), WithinAbs(100.0 * (1 + 2.0 / 3) / 2, 1e-12));
  CHECK(result["NoAns_exact"].get<double>() == 100.0);
  CHECK(result["NoAns_total"].get<int>() == 2);
  // By rising probability a, c, d, b from "no answer everywhere" (2 right): exact 3 → 2 → 2 after a;
  // F1 3, 3 + 2/3 after c, then d's wrong answer costs 1 and b's "" nothing.
  CHECK(result["best_exact"].get<double>() == 75.0);
  CHECK(result["best_exact_thresh"].get<double>() == 0.1);
  CHECK_THAT(result["best_f1"].get<double>(), WithinAbs(100.0 * (3 + 2.0 / 3) / 4, 1e-12));
  CHECK(result["best_f1_thresh"].get<double>() == 0.4);
  std::vector<std::string> keys;
  for (const auto& item : result.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"exact", "f1", "total", "HasAns_exact", "HasAns_f1", "HasAns_total",
                                         "NoAns_exact", "NoAns_f1", "NoAns_total", "best_exact", "best_exact_thresh",
                                         "best_f1", "best_f1_thresh"});

  const auto plain = evaluate_squad_v2(four_questions(), kFourPredictions);  // every probability 0
  CHECK(plain["exact"].get<double>() == 50.0);
  CHECK_FALSE(plain.contains("best_exact"));
}

TEST_CASE("v2.0 refuses a missing prediction or probability, as the script fails on it", "[metrics][squad]") {
  auto predictions = kFourPredictions;
  predictions.erase("c");
  try {
    evaluate_squad_v2(four_questions(), predictions);
    FAIL("no error");
  } catch (const c10::Error& e) {
    CHECK_THAT(e.what_without_backtrace(), Contains("no prediction for question 'c'"));
  }
  CHECK_THROWS_WITH(evaluate_squad_v2(four_questions(), kFourPredictions, SquadNoAnswerProbabilities{{"a", 0.5}}),
                    Contains("no no-answer probability for question 'b'"));
}

namespace {

// Predictions of every kind the metrics treat differently: exact, articles and case, partial, empty,
// extra words, and "the" (empty after normalisation).
std::string synthetic_prediction(const SquadQuestion& q, size_t i) {
  const std::string gold = q.answers.empty() ? "" : q.answers[i % q.answers.size()].text;
  switch (i % 6) {
    case 0: return gold;
    case 1: return "The " + gold + ".";
    case 2: return q.context.substr(0, std::min<size_t>(q.context.find(' ', 20), q.context.size()));
    case 3: return "";
    case 4: return gold + " and more words";
    default: return "the";
  }
}

nlohmann::ordered_json python_reference(const std::string& arguments) {
  const auto result = testing::run_command("'" + *testing::system_python() + "' '" + CAPABOOST_SOURCE_DIR +
                                           "/tests/support/squad_reference.py' evaluate " + arguments);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  return nlohmann::ordered_json::parse(result.output);
}

void check_equal(const nlohmann::ordered_json& ours, const nlohmann::ordered_json& reference) {
  std::vector<std::string> our_keys, reference_keys;
  for (const auto& item : ours.items()) our_keys.push_back(item.key());
  for (const auto& item : reference.items()) reference_keys.push_back(item.key());
  CHECK(our_keys == reference_keys);
  for (const auto& [key, value] : reference.items()) {
    INFO(key);
    CHECK_THAT(ours.at(key).get<double>(), WithinAbs(value.get<double>(), 1e-9));
  }
}

}  // namespace

TEST_CASE("the dev set and the v2.0 sample score as the Python rendering of the official scripts", "[metrics][squad][python]") {
  const auto root = test::mirror_root().path / "SQuAD";
  if (!std::filesystem::exists(root / "dev-v1.1.json") || !testing::system_python()) {
    WARN("skipped: needs " << root << " and a system python3");
    return;
  }
  capaboost::testing::TempDir dir;
  SECTION("v1.1 dev, 10,570 questions, one in seven unanswered") {
    const auto dev = load_squad((root / "dev-v1.1.json").string());
    nlohmann::json predictions = nlohmann::json::object();
    SquadPredictions ours;
    for (size_t i = 0; i < dev.questions.size(); ++i) {
      if (i % 7 == 3) continue;
      ours[dev.questions[i].id] = synthetic_prediction(dev.questions[i], i);
      predictions[dev.questions[i].id] = ours[dev.questions[i].id];
    }
    std::ofstream(dir.file("pred.json")) << predictions.dump();
    check_equal(evaluate_squad_v1(dev, ours),
                python_reference("'" + (root / "dev-v1.1.json").string() + "' '" + dir.file("pred.json") + "' 1.0"));
  }
  SECTION("v2.0 sample with no-answer probabilities, ties included") {
    const auto sample = load_squad((root / "sample-hf-v2-format.json").string());
    nlohmann::json predictions = nlohmann::json::object();
    nlohmann::ordered_json na_json = nlohmann::ordered_json::object();
    SquadPredictions ours;
    SquadNoAnswerProbabilities na;
    for (size_t i = 0; i < sample.questions.size(); ++i) {
      ours[sample.questions[i].id] = synthetic_prediction(sample.questions[i], i);
      predictions[sample.questions[i].id] = ours[sample.questions[i].id];
      na.emplace_back(sample.questions[i].id, static_cast<double>((i * 7) % 5) / 4);  // 0, .25, …: ties
      na_json[sample.questions[i].id] = na.back().second;
    }
    std::ofstream(dir.file("pred.json")) << predictions.dump();
    std::ofstream(dir.file("na.json")) << na_json.dump();
    const std::string files = "'" + (root / "sample-hf-v2-format.json").string() + "' '" + dir.file("pred.json") + "' '" +
                              dir.file("na.json") + "' ";
    check_equal(evaluate_squad_v2(sample, ours, na, 0.5), python_reference(files + "0.5"));
    check_equal(evaluate_squad_v2(sample, ours, na, 1.0), python_reference(files + "1.0"));
  }
}
