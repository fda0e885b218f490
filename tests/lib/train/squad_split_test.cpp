#include "train/squad_split.h"

#include <catch2/catch.hpp>

#include "lib/tokenizers/tiny_bpe_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using capaboost::testing::TinyBpeDir;

namespace {

SquadDataset two_questions(int major_version) {
  SquadDataset dataset;
  dataset.major_version = major_version;
  SquadQuestion world;
  world.id = "world";
  world.question = "hello";
  world.context = "the world hello";
  world.answers = {{"world", 4}};
  SquadQuestion none = world;
  none.id = "none";
  none.answers.clear();
  dataset.questions = {world, none};
  if (major_version == 1) dataset.questions.pop_back();
  return dataset;
}

// Logits that put all weight on each window's labels: what a perfectly trained span head outputs.
torch::Tensor oracle_logits(const Batch& batch) {
  const auto ids = batch.input("input_ids");
  auto logits = torch::full({ids.size(0), ids.size(1), 2}, -10.0f);  // (B, T, 2)
  for (int64_t row = 0; row < ids.size(0); ++row) {
    logits[row][batch.input("start_positions")[row].item<int64_t>()][0] = 10.0f;
    logits[row][batch.input("end_positions")[row].item<int64_t>()][1] = 10.0f;
  }
  return logits;
}

}  // namespace

TEST_CASE("a SQuAD split batches windows with their span labels and scores answers with the official metrics",
          "[train][squad]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const SquadSplit split(two_questions(1), tokenizer, SquadFeatureOptions().max_length(8).doc_stride(1),
                         SquadPostprocessOptions());
  REQUIRE(split.size() == 1);
  const Batch batch = split.collate({0}, BatchPadding::kMaxLength);
  CHECK(batch.input("input_ids").sizes() == torch::IntArrayRef({1, 8}));
  CHECK(batch.input("start_positions").item<int64_t>() == 5);
  CHECK(batch.input("end_positions").item<int64_t>() == 5);
  CHECK(batch.tokens == 8);
  auto scorer = split.scorer();
  scorer->add(oracle_logits(batch), batch);
  const Score score = scorer->finish();
  CHECK(score.metrics.at("exact_match") == Approx(1.0));
  CHECK(score.metrics.at("f1") == Approx(1.0));
  CHECK(score.selection == Approx(1.0));
  // An evaluation that misses a window cannot answer its question.
  CHECK_THROWS_WITH(split.scorer()->finish(), Catch::Contains("0 of 1 windows were scored"));
}

TEST_CASE("SQuAD v2.0 splits let the null answer compete and report the oracle threshold numbers apart",
          "[train][squad]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const SquadSplit split(two_questions(2), tokenizer, SquadFeatureOptions().max_length(8).doc_stride(1),
                         SquadPostprocessOptions());
  REQUIRE(split.size() == 2);
  const Batch batch = split.collate({1, 0});
  CHECK(batch.input("start_positions")[0].item<int64_t>() == 0);  // the unanswerable question points at CLS
  auto scorer = split.scorer();
  scorer->add(oracle_logits(batch), batch);
  const Score score = scorer->finish();
  CHECK(score.metrics.at("exact_match") == Approx(1.0));
  CHECK(score.metrics.at("HasAns_exact") == Approx(1.0));
  CHECK(score.metrics.at("NoAns_f1") == Approx(1.0));
  CHECK(score.metrics.at("total") == 2);
  CHECK(score.metrics.count("oracle_best_f1") == 1);
  CHECK(score.metrics.count("best_f1") == 0);
}

TEST_CASE("the official evaluation's numbers become fractions under one EM name; counts and thresholds stay",
          "[train][squad]") {
  nlohmann::ordered_json evaluation = {{"exact", 50.0},        {"f1", 75.0},       {"total", 4},
                                       {"HasAns_total", 2},    {"best_f1", 80.0},  {"best_f1_thresh", -1.5}};
  const auto metrics = squad_metric_values(evaluation);
  CHECK(metrics.at("exact_match") == Approx(0.5));
  CHECK(metrics.at("f1") == Approx(0.75));
  CHECK(metrics.at("total") == 4);
  CHECK(metrics.at("HasAns_total") == 2);
  CHECK(metrics.at("oracle_best_f1") == Approx(0.8));
  CHECK(metrics.at("oracle_best_f1_thresh") == Approx(-1.5));
}
