#include "metrics/glue_metrics.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "lib/metrics/binary_example.h"

using namespace capaboost;

using GlueLabels = std::vector<int64_t>;
using GlueScores = std::vector<double>;
using capaboost::testing::kBinaryGuess;  // accuracy 0.6, F1 2/3, MCC 1/6
using capaboost::testing::kBinaryTruth;

TEST_CASE("each task reports its GLUE metrics", "[metrics][glue]") {
  const auto cola = glue_metrics(glue_task("CoLA"), kBinaryGuess, kBinaryTruth);
  CHECK(cola.size() == 1);
  CHECK(cola.at("matthews_correlation") == Approx(1.0 / 6.0));
  const auto mrpc = glue_metrics(glue_task("MRPC"), kBinaryGuess, kBinaryTruth);
  CHECK(mrpc.size() == 2);
  CHECK(mrpc.at("accuracy") == Approx(0.6));
  CHECK(mrpc.at("f1") == Approx(2.0 / 3.0));
  CHECK(glue_metrics(glue_task("QQP"), kBinaryGuess, kBinaryTruth).count("f1") == 1);
  const auto rte = glue_metrics(glue_task("RTE"), kBinaryGuess, kBinaryTruth);
  CHECK(rte.size() == 1);
  CHECK(rte.at("accuracy") == Approx(0.6));
  const auto stsb = glue_metrics(glue_task("STS-B"), GlueScores{1, 2, 3, 4, 5}, GlueScores{2, 4, 5, 4, 5});
  CHECK(stsb.at("pearson") == Approx(6.0 / std::sqrt(60.0)));
  CHECK(stsb.at("spearmanr") == Approx(7.0 / std::sqrt(90.0)));
}

TEST_CASE("selection score: MCC, accuracy, or the mean of the two metrics", "[metrics][glue]") {
  CHECK(selection_score(glue_task("CoLA"), glue_metrics(glue_task("CoLA"), kBinaryGuess, kBinaryTruth)) ==
        Approx(1.0 / 6.0));
  CHECK(selection_score(glue_task("SST-2"), glue_metrics(glue_task("SST-2"), kBinaryGuess, kBinaryTruth)) == Approx(0.6));
  CHECK(selection_score(glue_task("MNLI"), {{"accuracy", 0.8}}) == 0.8);
  CHECK(selection_score(glue_task("MRPC"), glue_metrics(glue_task("MRPC"), kBinaryGuess, kBinaryTruth)) ==
        Approx((0.6 + 2.0 / 3.0) / 2.0));
  CHECK(selection_score(glue_task("QQP"), {{"accuracy", 0.9}, {"f1", 0.8}}) == Approx(0.85));
  CHECK(selection_score(glue_task("STS-B"), {{"pearson", 0.9}, {"spearmanr", 0.7}}) == Approx(0.8));
  CHECK_THROWS_WITH(selection_score(glue_task("MRPC"), {{"accuracy", 0.9}}),
                    Catch::Contains("'f1' is missing"));
}

TEST_CASE("the right kind of predictions for the task", "[metrics][glue]") {
  CHECK_THROWS_WITH(glue_metrics(glue_task("STS-B"), kBinaryGuess, kBinaryTruth), Catch::Contains("regression task"));
  CHECK_THROWS_WITH(glue_metrics(glue_task("RTE"), GlueScores{1, 2}, GlueScores{1, 2}), Catch::Contains("classification task"));
  CHECK_THROWS_WITH(glue_metrics(glue_task("RTE"), GlueLabels{0, 2}, GlueLabels{0, 1}), Catch::Contains("outside 0..1"));
  CHECK_NOTHROW(glue_metrics(glue_task("MNLI"), GlueLabels{0, 2}, GlueLabels{0, 1}));
}

TEST_CASE("labels from examples", "[metrics][glue]") {
  std::vector<Example> examples(2);
  examples[0].label = int64_t{1};
  examples[1].label = int64_t{0};
  CHECK(class_labels(examples) == GlueLabels{1, 0});
  CHECK_THROWS_WITH(score_labels(examples), Catch::Contains("has no score"));
  examples[1].label = std::monostate{};
  examples[1].line = 7;
  CHECK_THROWS_WITH(class_labels(examples), Catch::Contains("line 7 has no class label"));
  std::vector<Example> scored(1);
  scored[0].label = 3.5;
  CHECK(score_labels(scored) == GlueScores{3.5});
}
