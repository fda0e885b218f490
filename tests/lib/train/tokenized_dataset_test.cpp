#include "train/tokenized_dataset.h"

#include <catch2/catch.hpp>

#include "train_test_support.h"

using namespace capaboost;
using namespace capaboost::test;
using Catch::Contains;

TEST_CASE("dynamic padding pads each batch to its longest example", "[train][tokenized_dataset]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const auto splits = small_splits("RTE", 20);
  const auto tokenizer = roberta_tokenizer();
  const auto data = TokenizedDataset::tokenize(splits.train, *tokenizer, glue_task("RTE"), 64);
  REQUIRE(data.size() == 20);
  int64_t longest = 0;
  for (int64_t i = 0; i < 4; ++i) longest = std::max<int64_t>(longest, static_cast<int64_t>(data.ids(i).size()));
  const Batch batch = data.collate({0, 1, 2, 3});
  const auto& input_ids = batch.input("input_ids");
  const auto& attention_mask = batch.input("attention_mask");
  CHECK(input_ids.sizes() == torch::IntArrayRef({4, longest}));
  CHECK(attention_mask.sum().item<int64_t>() == batch.tokens);
  CHECK(batch.examples == 4);
  CHECK(batch.indices == std::vector<int64_t>{0, 1, 2, 3});
  for (int64_t row = 0; row < 4; ++row) {
    const auto& ids = data.ids(row);
    CHECK(ids.size() <= 64);
    CHECK(ids.front() == 0);  // <s>
    CHECK(ids.back() == 2);   // </s>
    CHECK(input_ids[row][static_cast<int64_t>(ids.size()) - 1].item<int64_t>() == 2);
    if (static_cast<int64_t>(ids.size()) < longest) {
      CHECK(input_ids[row][longest - 1].item<int64_t>() == tokenizer->pad_id());
      CHECK(attention_mask[row][longest - 1].item<int64_t>() == 0);
    }
    CHECK(batch.labels[row].item<int64_t>() == splits.train[static_cast<size_t>(row)].class_id());
  }
  const Batch padded = data.collate({0, 1}, BatchPadding::kMaxLength);
  CHECK(padded.input("input_ids").size(1) == 64);
  CHECK(padded.tokens == static_cast<int64_t>(data.ids(0).size() + data.ids(1).size()));
}

TEST_CASE("pairs are truncated to max_length with both sentences kept", "[train][tokenized_dataset]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const auto splits = small_splits("RTE", 50);
  const auto data = TokenizedDataset::tokenize(splits.train, *roberta_tokenizer(), glue_task("RTE"), 24);
  int64_t truncated = 0;
  for (int64_t i = 0; i < data.size(); ++i) {
    const auto& ids = data.ids(i);
    CHECK(ids.size() <= 24);
    // <s> a </s></s> b </s>: the pair separator survives truncation.
    int64_t separators = 0;
    for (int64_t id : ids) separators += id == 2 ? 1 : 0;
    CHECK(separators == 3);
    truncated += ids.size() == 24 ? 1 : 0;
  }
  CHECK(truncated > 0);  // RTE premises are long: the limit must have bitten
}

TEST_CASE("regression batches carry float scores", "[train][tokenized_dataset]") {
  REQUIRE_MIRROR_AND_TOKENIZER("STS-B");
  const auto splits = small_splits("STS-B", 8);
  const auto data = TokenizedDataset::tokenize(splits.train, *roberta_tokenizer(), glue_task("STS-B"), 128);
  const Batch batch = data.collate({0, 1, 2});
  CHECK(batch.labels.scalar_type() == torch::kFloat32);
  CHECK(batch.labels[2].item<float>() == Approx(splits.train[2].score()).epsilon(1e-6));
}

TEST_CASE("the GLUE scorer scores outputs against the split's own labels, in batch order", "[train][tokenized_dataset]") {
  REQUIRE_MIRROR_AND_TOKENIZER("STS-B");
  const auto splits = small_splits("STS-B", 8);
  const auto data = TokenizedDataset::tokenize(splits.train, *roberta_tokenizer(), glue_task("STS-B"), 128);
  // Predict every label exactly, in a shuffled batch order: correlation 1 only if the scorer looks the
  // labels up by index (and in float64, as the metrics need).
  auto scorer = data.scorer();
  for (const auto& indices : std::vector<std::vector<int64_t>>{{5, 0, 7}, {3, 1}, {6, 2, 4}}) {
    const Batch batch = data.collate(indices);
    auto outputs = torch::empty({static_cast<int64_t>(indices.size()), 1}, torch::kFloat64);
    for (size_t i = 0; i < indices.size(); ++i) outputs[static_cast<int64_t>(i)][0] = data.score_labels()[indices[i]];
    scorer->add(outputs, batch);
  }
  const Score score = scorer->finish();
  CHECK(score.metrics.at("pearson") == Approx(1.0).epsilon(1e-12));
  CHECK(score.metrics.at("spearmanr") == Approx(1.0).epsilon(1e-12));
  CHECK(score.selection == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("unlabeled examples are refused with their line", "[train][tokenized_dataset]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  std::vector<Example> examples(1);
  examples[0].text_a = "A premise.";
  examples[0].text_b = "A hypothesis.";
  examples[0].line = 7;
  CHECK_THROWS_WITH(TokenizedDataset::tokenize(examples, *roberta_tokenizer(), glue_task("RTE"), 32), Contains("7"));
}
