#include "train/trainer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "metrics/glue_metrics.h"
#include "peft/method_registry.h"
#include "train/tokenized_dataset.h"
#include "train/trainable_selection.h"
#include "train_test_support.h"

using namespace capaboost;
using namespace capaboost::test;
using Catch::Contains;

namespace {

// LoRA r=4 on query/value plus the head of a tiny random encoder, trained on the first `n` examples.
std::shared_ptr<TokenizedDataset> tokenized(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                            const TaskInfo& task, int64_t max_length) {
  return std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(examples, tokenizer, task, max_length));
}

TrainResult train_tiny(const std::string& task_name, int64_t n, const TrainerOptions& options,
                       const nlohmann::json& method = {{"targets", {"query", "value"}}, {"rank", 4}},
                       const std::string& method_name = "lora", TrainingHooks* extra_hooks = nullptr) {
  const TaskInfo& task = glue_task(task_name);
  const auto splits = small_splits(task_name, n);
  const auto tokenizer = roberta_tokenizer();
  TrainingData data;
  data.train = tokenized(splits.train, *tokenizer, task, 64);
  // A slice of eval/test keeps the test fast; the metrics still come from real dev examples.
  const auto head = [](const std::vector<Example>& examples) {
    return std::vector<Example>(examples.begin(), examples.begin() + std::min<size_t>(64, examples.size()));
  };
  data.eval = tokenized(head(splits.eval), *tokenizer, task, 64);
  data.test = tokenized(head(splits.test), *tokenizer, task, 64);
  torch::manual_seed(options.seed());
  auto model = RobertaForSequenceClassification(tiny_encoder(task.num_labels));
  const MethodSpec& spec = find_method(method_name);
  const Parameters config = resolve_or_throw(spec.parameters, method, "method " + method_name);
  spec.attach(*model, config);
  select_trainable_parameters(*model, spec.trains_backbone_parameter, model->head_prefixes());
  const TrainingHooksPtr hooks = spec.training_hooks ? spec.training_hooks(*model, config) : nullptr;
  return train_model(*model, data, options, extra_hooks ? extra_hooks : hooks.get());
}

// Counts the trainer's calls and adds a constant regulariser, so its effect on the loss is known.
class CountingHooks : public TrainingHooks {
 public:
  torch::Tensor regularization_loss(TaskModelImpl&, const Batch&, const torch::Tensor&) override {
    ++regularized;
    return torch::full({}, 0.25);
  }
  void after_step(int64_t step, int64_t total_steps) override {
    steps.push_back(step);
    totals.push_back(total_steps);
  }
  nlohmann::json summary() const override { return {{"counted", steps.size()}}; }
  int64_t regularized = 0;
  std::vector<int64_t> steps, totals;
};

// A split that records the batches it is asked for, over a tokenized one.
class RecordingSplit : public TrainingSplit {
 public:
  explicit RecordingSplit(std::shared_ptr<TokenizedDataset> inner) : inner_(std::move(inner)) {}
  int64_t size() const override { return inner_->size(); }
  int64_t length(int64_t index) const override { return inner_->length(index); }
  Batch collate(const std::vector<int64_t>& indices, BatchPadding padding) const override {
    batches.push_back(indices);
    return inner_->collate(indices, padding);
  }
  std::unique_ptr<SplitScorer> scorer() const override { return std::make_unique<Scorer>(*this); }
  mutable std::vector<std::vector<int64_t>> batches;
  mutable std::map<int64_t, float> predictions;  ///< index → the model's first output

 private:
  // The split's own scorer, keeping every example's output by index on the way.
  class Scorer : public SplitScorer {
   public:
    explicit Scorer(const RecordingSplit& split) : split_(split), inner_(split.inner_->scorer()) {}
    void add(const torch::Tensor& outputs, const Batch& batch) override {
      for (size_t i = 0; i < batch.indices.size(); ++i)
        split_.predictions[batch.indices[i]] = outputs[static_cast<int64_t>(i)][0].item<float>();
      inner_->add(outputs, batch);
    }
    Score finish() override { return inner_->finish(); }

   private:
    const RecordingSplit& split_;
    std::unique_ptr<SplitScorer> inner_;
  };
  std::shared_ptr<TokenizedDataset> inner_;
};

}  // namespace

TEST_CASE("evaluation batches the examples by length, with the metrics of one example at a time", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("STS-B");
  const TaskInfo& task = glue_task("STS-B");
  const auto splits = small_splits("STS-B", 8);
  const auto tokenizer = roberta_tokenizer();
  const std::vector<Example> examples(splits.eval.begin(), splits.eval.begin() + std::min<size_t>(100, splits.eval.size()));
  RecordingSplit split(tokenized(examples, *tokenizer, task, 64));
  torch::manual_seed(11);
  auto model = RobertaForSequenceClassification(tiny_encoder(task.num_labels));
  const Score batched = evaluate_model(*model, split, 16);
  // Every example once, and the lengths never fall along the batches: each batch pads to its own longest.
  std::vector<int64_t> seen, lengths;
  int64_t padded = 0, plain_padded = 0;
  for (const auto& batch : split.batches) {
    int64_t longest = 0;
    for (const int64_t index : batch) {
      seen.push_back(index);
      lengths.push_back(split.length(index));
      longest = std::max(longest, split.length(index));
    }
    padded += longest * static_cast<int64_t>(batch.size());
  }
  CHECK(std::is_sorted(lengths.begin(), lengths.end()));
  std::sort(seen.begin(), seen.end());
  CHECK(seen.size() == examples.size());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  // The index order's padded tokens, for comparison: sorting pads less on real sentences.
  for (size_t first = 0; first < examples.size(); first += 16) {
    int64_t longest = 0;
    const size_t end = std::min(examples.size(), first + 16);
    for (size_t i = first; i < end; ++i) longest = std::max(longest, split.length(static_cast<int64_t>(i)));
    plain_padded += longest * static_cast<int64_t>(end - first);
  }
  CHECK(padded < plain_padded);
  // Scorers place outputs by index: every example's output is its output alone, without padding, to
  // float rounding, and so are the metrics (a random model's outputs spread little, so its correlations
  // feel that rounding more than a trained one's).
  const auto sorted_predictions = split.predictions;
  split.predictions.clear();
  const Score alone = evaluate_model(*model, split, 1);
  REQUIRE(split.predictions.size() == sorted_predictions.size());
  for (const auto& [index, value] : split.predictions) CHECK(sorted_predictions.at(index) == Approx(value).margin(1e-5));
  CHECK(alone.metrics.at("pearson") == Approx(batched.metrics.at("pearson")).margin(1e-4));
  // Spearman ranks the outputs: a random model's nearly equal outputs swap ranks when their last bits
  // move, each adjacent swap of 100 ranks moving ρ by about 1.2e-5. On 2026-12-07's fresh machine (the same
  // CPU as before, Debian's packages installed that day) the two orders differed by 2.4e-4 (0.04271 against
  // 0.04247) while every output agreed to 1e-5, so the bound is 1e-3; an output placed at another
  // example's index fails the per-output check above.
  CHECK(alone.metrics.at("spearmanr") == Approx(batched.metrics.at("spearmanr")).margin(1e-3));
  // The loss, STS-B's mean squared error, as computed by hand from every output and label, in either order;
  // and what the pass covered.
  const std::vector<double> labels = score_labels(examples);
  double squared = 0;
  int64_t tokens = 0;
  for (const auto& [index, value] : split.predictions) {
    squared += std::pow(value - labels.at(static_cast<size_t>(index)), 2);
    tokens += split.length(index);
  }
  REQUIRE(batched.loss.has_value());
  CHECK(*batched.loss == Approx(squared / static_cast<double>(examples.size())).epsilon(1e-4));
  CHECK(*alone.loss == Approx(*batched.loss).epsilon(1e-4));
  CHECK(batched.examples == static_cast<int64_t>(examples.size()));
  CHECK(batched.tokens == tokens);
}

TEST_CASE("fine-tuning on CoLA makes the training loss fall", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("CoLA");
  const auto result = train_tiny("CoLA", 256, TrainerOptions().lr(3e-3).epochs(4).batch_size(16).progress(false));
  REQUIRE(result.ok());
  REQUIRE(result.epochs.size() == 4);
  CHECK(result.steps == 4 * 16);
  // From chance (ln 2 = 0.693) towards the class prior's entropy (CoLA is 70% acceptable: 0.61).
  INFO("epoch losses " << result.epochs.front().train_loss << " → " << result.epochs.back().train_loss);
  CHECK(result.epochs.back().train_loss < result.epochs.front().train_loss - 0.03);
  CHECK(result.epochs.front().eval.count("matthews_correlation") == 1);
  CHECK(result.best_epoch >= 1);
  CHECK(result.parameters.tuner_dense == 2 * 2 * 4 * (32 + 32));  // 2 layers × {q, v} × r(in + out)
  REQUIRE(result.site_ranks.sites.size() == 4);
  for (const auto& [site, rank] : result.site_ranks.sites) CHECK(rank.rank == 4);  // B has left zero: rank r
  CHECK(result.site_ranks.lora_parameters(8) == 4 * 8 * (32 + 32));
  CHECK(result.train_tokens_per_second > 0);
  CHECK(result.train_examples_per_second > 0);
  CHECK(result.epochs.front().train_examples == 256);
}

TEST_CASE("the curves: loss, rate and gradient norm every step, the metrics and eval loss every epoch",
          "[train][trainer][scalars]") {
  REQUIRE_MIRROR_AND_TOKENIZER("CoLA");
  const auto options = TrainerOptions().lr(2e-3).epochs(2).batch_size(16).warmup_ratio(0.25).progress(false);
  const auto clipped = train_tiny("CoLA", 64, TrainerOptions(options).grad_clip(1.0));
  const auto unclipped = train_tiny("CoLA", 64, TrainerOptions(options).grad_clip(0));
  REQUIRE(clipped.ok());
  std::map<std::string, std::vector<ScalarPoint>> series;
  for (const auto& point : clipped.scalars) series[point.tag].push_back(point);
  const LinearWarmupDecay schedule(LinearWarmupDecayOptions(clipped.steps).peak_lr(2e-3).warmup_ratio(0.25));
  REQUIRE(series["train/loss"].size() == static_cast<size_t>(clipped.steps));
  REQUIRE(series["train/lr"].size() == static_cast<size_t>(clipped.steps));
  for (int64_t step = 1; step <= clipped.steps; ++step) {
    CHECK(series["train/loss"][static_cast<size_t>(step - 1)].step == step);
    CHECK(series["train/lr"][static_cast<size_t>(step - 1)].value == Approx(schedule.lr(step - 1)));
    CHECK(series["train/grad_norm"][static_cast<size_t>(step - 1)].value > 0);
  }
  // Per epoch: the mean of its steps' losses is the epoch's loss; the eval points are the epoch's metrics.
  const int64_t per_epoch = clipped.steps / 2;
  for (size_t epoch = 0; epoch < 2; ++epoch) {
    double sum = 0;
    for (int64_t i = 0; i < per_epoch; ++i) sum += series["train/loss"][epoch * per_epoch + i].value;
    CHECK(sum / per_epoch == Approx(clipped.epochs[epoch].train_loss));
    CHECK(series["train/epoch_loss"][epoch].value == Approx(clipped.epochs[epoch].train_loss));
    CHECK(series["eval/loss"][epoch].step == static_cast<int64_t>(epoch + 1) * per_epoch);
    REQUIRE(clipped.epochs[epoch].eval_loss.has_value());
    CHECK(series["eval/loss"][epoch].value == Approx(*clipped.epochs[epoch].eval_loss));
    CHECK(series["eval/matthews_correlation"][epoch].value == clipped.epochs[epoch].eval.at("matthews_correlation"));
    CHECK(series["test/score"][epoch].value == clipped.epochs[epoch].test_score);
  }
  // The norm before clipping: at the first step both runs are in one state, so clipping's norm
  // (clip_grad_norm_) and the unclipped run's own must agree.
  CHECK(unclipped.scalars.at(2).tag == "train/grad_norm");
  CHECK(unclipped.scalars.at(2).value == Approx(series["train/grad_norm"][0].value).epsilon(1e-6));
  for (size_t i = 1; i < clipped.scalars.size(); ++i) CHECK(clipped.scalars[i].seconds >= clipped.scalars[i - 1].seconds);
  CHECK(clipped.eval_tokens_per_second > 0);
  CHECK(clipped.peak_rss_mib > 0);
}

TEST_CASE("the same seed gives identical metrics twice", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const auto options = TrainerOptions().lr(2e-3).epochs(2).batch_size(8).seed(7).progress(false);
  const nlohmann::json capaboost = {{"targets", {"query", "value"}}, {"rank", 2}, {"branches", 2}};
  const auto first = train_tiny("RTE", 64, options, capaboost);
  const auto second = train_tiny("RTE", 64, options, capaboost);
  REQUIRE(first.epochs.size() == 2);
  for (size_t e = 0; e < 2; ++e) {
    CHECK(first.epochs[e].train_loss == second.epochs[e].train_loss);
    CHECK(first.epochs[e].eval == second.epochs[e].eval);
    CHECK(first.epochs[e].test == second.epochs[e].test);
  }
  const auto other_seed = train_tiny("RTE", 64, TrainerOptions(options).seed(8), capaboost);
  CHECK(other_seed.epochs[0].train_loss != first.epochs[0].train_loss);
}

TEST_CASE("bf16 products train as fp32 does, within bf16's rounding", "[train][trainer][precision]") {
  REQUIRE_MIRROR_AND_TOKENIZER("CoLA");
  // ATen computes bf16 on any CPU (slowly without AVX512-BF16): the numerics are checked everywhere.
  const auto options = TrainerOptions().lr(3e-3).epochs(2).batch_size(16).progress(false);
  const auto fp32 = train_tiny("CoLA", 128, options);
  const auto bf16 = train_tiny("CoLA", 128, TrainerOptions(options).precision(runtime::Precision::kBf16));
  REQUIRE(fp32.ok());
  REQUIRE(bf16.ok());
  REQUIRE(bf16.epochs.size() == 2);
  for (size_t e = 0; e < 2; ++e) {
    INFO("epoch " << e + 1 << ": fp32 loss " << fp32.epochs[e].train_loss << ", bf16 " << bf16.epochs[e].train_loss);
    CHECK(bf16.epochs[e].train_loss != fp32.epochs[e].train_loss);  // the products did run in bf16
    CHECK(bf16.epochs[e].train_loss == Approx(fp32.epochs[e].train_loss).epsilon(0.02));
  }
  CHECK(bf16.epochs.back().train_loss < bf16.epochs.front().train_loss);
}

TEST_CASE("regression fine-tuning reports Pearson and Spearman", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("STS-B");
  const auto result = train_tiny("STS-B", 64, TrainerOptions().lr(1e-3).epochs(1).batch_size(16).progress(false));
  REQUIRE(result.ok());
  CHECK(result.test.count("pearson") == 1);
  CHECK(result.test.count("spearmanr") == 1);
  CHECK(std::isfinite(result.epochs[0].train_loss));
}

TEST_CASE("a NaN loss stops the run with a diverged status", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const TaskInfo& task = glue_task("RTE");
  const auto splits = small_splits("RTE", 32);
  const auto tokenizer = roberta_tokenizer();
  TrainingData data;
  data.train = tokenized(splits.train, *tokenizer, task, 32);
  data.eval = data.test = tokenized(splits.eval, *tokenizer, task, 32);
  auto model = RobertaForSequenceClassification(tiny_encoder(2));
  {
    torch::NoGradGuard no_grad;
    model->classifier->out_proj->bias.fill_(std::nan(""));
  }
  select_trainable_parameters(*model, find_method("full").trains_backbone_parameter, model->head_prefixes());
  const auto result = train_model(*model, data, TrainerOptions().epochs(2).progress(false));
  CHECK(result.status == TrainStatus::kDiverged);
  CHECK_THAT(result.failure, Contains("epoch 1, step 1"));
  CHECK_THAT(result.failure, Contains("lower the learning rate"));
  CHECK(result.epochs.empty());
  CHECK(result.best_epoch == 0);
}

TEST_CASE("a method's training hooks regularise every step and follow every optimizer update", "[train][trainer]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const auto options = TrainerOptions().lr(2e-3).epochs(2).batch_size(16).seed(3).progress(false);
  CountingHooks hooks;
  const auto hooked = train_tiny("RTE", 48, options, {{"targets", {"query", "value"}}, {"rank", 2}}, "lora", &hooks);
  const auto plain = train_tiny("RTE", 48, options, {{"targets", {"query", "value"}}, {"rank", 2}});
  REQUIRE(hooked.steps == 6);
  CHECK(hooks.regularized == 6);
  CHECK(hooks.steps == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(hooks.totals == std::vector<int64_t>(6, 6));
  CHECK(hooked.method_summary == nlohmann::json{{"counted", 6}});
  CHECK(hooked.to_json().at("method_summary").at("counted") == 6);
  // A constant regulariser has no gradient: the run equals the plain one, and the logged loss is the task's.
  CHECK(hooked.epochs[1].train_loss == plain.epochs[1].train_loss);
  CHECK_FALSE(plain.to_json().contains("method_summary"));
}

TEST_CASE("AdaLoRA trains through the trainer and ends at its target budget", "[train][trainer][adalora]") {
  REQUIRE_MIRROR_AND_TOKENIZER("CoLA");
  // 2 layers × {query, value} at initial rank 6 → target 3: budget 24 → 12 over 4 × 16 = 64 steps.
  const nlohmann::json adalora = {{"initial_rank", 6}, {"target_rank", 3}, {"mask_interval", 2}};
  const auto result = train_tiny("CoLA", 256, TrainerOptions().lr(3e-3).epochs(4).batch_size(16).progress(false),
                                 adalora, "adalora");
  REQUIRE(result.ok());
  INFO("epoch losses " << result.epochs.front().train_loss << " → " << result.epochs.back().train_loss);
  CHECK(result.epochs.back().train_loss < result.epochs.front().train_loss - 0.03);
  const auto& summary = result.method_summary.at("adalora");
  CHECK(summary.at("initial_budget") == 24);
  CHECK(summary.at("target_budget") == 12);
  CHECK(summary.at("scheduled_budget") == 12);
  CHECK(summary.at("active_rank_total") == 12);
  int64_t total = 0;
  for (const auto& [site, rank] : summary.at("active_ranks").items()) total += rank.get<int64_t>();
  CHECK(total == 12);
  // dense: 4 sites × 6 × (32 + 32 + 1); effective: the target's 4 × 3 × 65.
  CHECK(result.parameters.tuner_dense == 4 * 6 * 65);
  CHECK(result.parameters.tuner_effective == 4 * 3 * 65);
}
