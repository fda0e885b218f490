// Chance levels by hand: the best constant prediction's score under the suite's own metrics, and the
// standard error of a chance-level score over the split.

#include "metrics/chance_level.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capaboost;

namespace {

const TaskInfo& glue(const std::string& name) {
  for (const auto& task : glue_tasks()) {
    if (task.name == name) return task;
  }
  throw std::runtime_error("no GLUE task " + name);
}

std::vector<Example> with_classes(const std::vector<int64_t>& classes) {
  std::vector<Example> examples;
  for (const int64_t c : classes) examples.push_back(Example{"text", std::nullopt, Label{c}, 0});
  return examples;
}

}  // namespace

TEST_CASE("CoLA: chance MCC is 0 with standard error 1/√n", "[metrics][chance]") {
  const auto chance = glue_chance_levels(glue("CoLA"), with_classes({1, 1, 1, 0}));
  CHECK(chance.level.at("matthews_correlation") == 0.0);
  CHECK(chance.standard_error.at("matthews_correlation") == Approx(0.5));
}

TEST_CASE("MRPC: majority accuracy and the F1 of calling every pair a paraphrase", "[metrics][chance]") {
  // 6 positives of 8: accuracy 0.75 at the majority class; F1 of all-positive = 2q/(1 + q) = 6/7.
  const auto chance = glue_chance_levels(glue("MRPC"), with_classes({1, 1, 1, 1, 1, 1, 0, 0}));
  CHECK(chance.level.at("accuracy") == Approx(0.75));
  CHECK(chance.standard_error.at("accuracy") == Approx(std::sqrt(0.75 * 0.25 / 8)));
  CHECK(chance.level.at("f1") == Approx(6.0 / 7.0));
  CHECK(chance.standard_error.at("f1") == Approx(2.0 / (1.75 * 1.75) * std::sqrt(0.75 * 0.25 / 8)));
}

TEST_CASE("SST-2 with a negative majority: accuracy is the majority's share", "[metrics][chance]") {
  const auto chance = glue_chance_levels(glue("SST-2"), with_classes({0, 0, 0, 1, 0}));
  CHECK(chance.level.at("accuracy") == Approx(0.8));
}

TEST_CASE("STS-B: chance correlation is 0 with standard error 1/√n", "[metrics][chance]") {
  std::vector<Example> examples;
  for (const double score : {0.5, 4.0, 2.5, 1.0}) examples.push_back(Example{"a", std::string("b"), Label{score}, 0});
  const auto chance = glue_chance_levels(glue("STS-B"), examples);
  CHECK(chance.level.at("pearson") == 0.0);
  CHECK(chance.level.at("spearmanr") == 0.0);
  CHECK(chance.standard_error.at("pearson") == Approx(0.5));
}
