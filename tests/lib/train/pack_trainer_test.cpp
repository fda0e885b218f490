// Packed runs train as each alone does: the same losses, metrics and trained tuners and heads, up to the
// rounding of taller products — with dropout on, LoRA and CapaBoost forms with different masks, and
// different learning rates in one pack.

#include "train/pack_trainer.h"

#include <catch2/catch.hpp>

#include "peft/method_registry.h"
#include "train/tokenized_dataset.h"
#include "train/trainable_selection.h"
#include "train_test_support.h"

using namespace capaboost;
using namespace capaboost::test;

namespace {

constexpr uint64_t kSeed = 42;

// The model of one run, built as the finetune measure builds it: seed, encoder and head, method, freeze.
RobertaForSequenceClassification build_run(const nlohmann::json& method) {
  torch::manual_seed(kSeed);
  auto model = RobertaForSequenceClassification(tiny_encoder(2));
  if (!method.is_null()) {
    const MethodSpec& spec = find_method("lora");
    spec.attach(*model, resolve_or_throw(spec.parameters, method, "method lora"));
    select_trainable_parameters(*model, spec.trains_backbone_parameter, model->head_prefixes());
  }
  return model;
}

TrainingData sst2_data(int64_t n) {
  const TaskInfo& task = glue_task("SST-2");
  const auto splits = small_splits("SST-2", n);
  const auto tokenizer = roberta_tokenizer();
  const auto slice = [](const std::vector<Example>& examples) {
    return std::vector<Example>(examples.begin(), examples.begin() + std::min<size_t>(96, examples.size()));
  };
  TrainingData data;
  data.train = std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(splits.train, *tokenizer, task, 64));
  data.eval = std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(slice(splits.eval), *tokenizer, task, 64));
  data.test = std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(slice(splits.test), *tokenizer, task, 64));
  return data;
}

// max |a − b| / max |b| over every trainable tensor of two models of one run.
double largest_relative_difference(torch::nn::Module& packed, torch::nn::Module& alone) {
  const auto reference = alone.named_parameters();
  double worst = 0;
  for (const auto& item : packed.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const auto& b = reference[item.key()];
    const double scale = std::max(b.abs().max().item<double>(), 1e-12);
    worst = std::max(worst, (item.value() - b).abs().max().item<double>() / scale);
  }
  return worst;
}

}  // namespace

TEST_CASE("packed runs train as each run alone: losses, metrics and weights", "[train][pack]") {
  REQUIRE_MIRROR_AND_TOKENIZER("SST-2");
  const TrainingData data = sst2_data(208);  // 13 batches of 16: 52 steps over 4 epochs
  const nlohmann::json lora = {{"targets", {"query", "value"}}, {"rank", 4}};
  const std::vector<nlohmann::json> methods = {
      lora,
      {{"targets", {"query", "value"}}, {"rank", 4}, {"branches", 2}, {"density", 0.5}},
      {{"targets", {"query", "value"}}, {"rank", 4}, {"branches", 2}, {"density", 0.5}, {"mask", "same"}}};
  const std::vector<double> rates = {1e-3, 3e-3, 5e-4};
  const auto options = TrainerOptions().epochs(4).batch_size(16).seed(kSeed).progress(false).keep_best_state(true);

  std::vector<RobertaForSequenceClassification> alone_models, packed_models;
  std::vector<TrainResult> alone;
  std::vector<TrainerOptions> packed_options;
  for (size_t i = 0; i < methods.size(); ++i) {
    alone_models.push_back(build_run(methods[i]));
    alone.push_back(train_model(*alone_models.back(), data, TrainerOptions(options).lr(rates[i])));
    packed_models.push_back(build_run(methods[i]));
    packed_options.push_back(TrainerOptions(options).lr(rates[i]));
  }
  PackedSequenceClassifier pack(build_run(nullptr), packed_models);
  const auto packed = train_pack(pack, data, packed_options);

  REQUIRE(packed.size() == methods.size());
  for (size_t i = 0; i < methods.size(); ++i) {
    INFO("run " << i << ": " << methods[i].dump() << " lr " << rates[i]);
    REQUIRE(packed[i].ok());
    CHECK(packed[i].steps == 52);
    CHECK(packed[i].steps == alone[i].steps);
    REQUIRE(packed[i].epochs.size() == alone[i].epochs.size());
    for (size_t e = 0; e < alone[i].epochs.size(); ++e) {
      INFO("epoch " << e + 1);
      CHECK(packed[i].epochs[e].train_loss == Approx(alone[i].epochs[e].train_loss).epsilon(1e-4));
      CHECK(packed[i].epochs[e].eval_score == Approx(alone[i].epochs[e].eval_score).margin(1e-9));
      CHECK(packed[i].epochs[e].train_tokens == alone[i].epochs[e].train_tokens);
    }
    CHECK(packed[i].best_epoch == alone[i].best_epoch);
    CHECK(packed[i].test_score == Approx(alone[i].test_score).margin(1e-9));
    CHECK(packed[i].parameters.trainable == alone[i].parameters.trainable);
    CHECK(packed[i].site_ranks.sites.size() == alone[i].site_ranks.sites.size());
    CHECK(packed[i].site_ranks.mean_rank() == alone[i].site_ranks.mean_rank());
    // After 52 steps the trained tuners and head are the same up to rounding.
    CHECK(largest_relative_difference(*packed_models[i], *alone_models[i]) < 1e-4);
    CHECK(packed[i].best_state.size() == alone[i].best_state.size());
  }
  // The runs really differ (masks and rates), so equal results above are not a pack of copies.
  CHECK(packed[0].epochs.back().train_loss != Approx(packed[1].epochs.back().train_loss).epsilon(1e-6));
}

TEST_CASE("packs refuse runs that cannot share one forward", "[train][pack]") {
  const nlohmann::json lora = {{"targets", {"query", "value"}}, {"rank", 4}};
  SECTION("a run that tunes other sites") {
    CHECK_THROWS_WITH(PackedSequenceClassifier(build_run(nullptr),
                                               {build_run(lora), build_run({{"targets", {"query"}}, {"rank", 4}})}),
                      Catch::Contains("other sites"));
  }
  SECTION("a run whose frozen backbone differs") {
    torch::manual_seed(kSeed + 1);
    auto other = RobertaForSequenceClassification(tiny_encoder(2));
    CHECK_THROWS_WITH(PackedSequenceClassifier(other, {build_run(lora)}), Catch::Contains("differs from the carrier"));
  }
  SECTION("trainer options that differ in more than the learning rate") {
    PackedSequenceClassifier pack(build_run(nullptr), {build_run(lora), build_run(lora)});
    TrainingData empty;
    const auto options = TrainerOptions().progress(false);
    CHECK_THROWS_WITH(train_pack(pack, empty, {options, TrainerOptions(options).epochs(5)}),
                      Catch::Contains("more than lr and label"));
  }
}
