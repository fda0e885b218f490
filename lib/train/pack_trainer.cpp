#include "train/pack_trainer.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <optional>

#include "checkpoint/tuned_state.h"
#include "data/batching.h"
#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "runtime/process_memory.h"
#include "train/lr_schedule.h"
#include "train/optimizer_setup.h"
#include "train/step_profiler.h"

namespace capaboost {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// What a run alone would take from its options, apart from lr and label: equal across the pack.
void check_packable(const std::vector<TrainerOptions>& options) {
  const TrainerOptions& first = options.front();
  for (size_t i = 1; i < options.size(); ++i) {
    const TrainerOptions& o = options[i];
    const bool same = o.epochs() == first.epochs() && o.batch_size() == first.batch_size() &&
                      o.eval_batch_size() == first.eval_batch_size() && o.weight_decay() == first.weight_decay() &&
                      o.warmup_ratio() == first.warmup_ratio() && o.lr_decay() == first.lr_decay() &&
                      o.grad_clip() == first.grad_clip() &&
                      o.precision() == first.precision() && o.seed() == first.seed() && o.padding() == first.padding() &&
                      o.group_by_length() == first.group_by_length() &&
                      o.shuffle_grouped_batches() == first.shuffle_grouped_batches() &&
                      o.measure_ranks() == first.measure_ranks() && o.keep_best_state() == first.keep_best_state();
    TORCH_CHECK(same, "train_pack: run ", i, "'s trainer options differ from run 0's in more than lr and label; "
                "packed runs share seed, epochs, batch sizes, schedule shape, clipping and precision");
  }
}

// One run's training state inside the pack.
struct PackedRun {
  TrainResult result;
  std::unique_ptr<torch::optim::AdamW> optimizer;
  std::vector<double> peak_rates;
  std::vector<torch::Tensor> clipped;
  std::optional<LinearWarmupDecay> schedule;
  EpochMetrics metrics;
  double loss_sum = 0;
};

}  // namespace

std::vector<Score> evaluate_pack(PackedSequenceClassifier& pack, const TrainingSplit& split, int64_t batch_size,
                                 runtime::Precision precision) {
  TORCH_CHECK(split.size() > 0, "evaluate_pack: the evaluation split is empty");
  const bool was_training = pack.run(0).is_training();
  pack.train(false);
  torch::NoGradGuard no_grad;
  std::vector<int64_t> order(static_cast<size_t>(split.size()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::vector<std::unique_ptr<SplitScorer>> scorers;
  for (size_t i = 0; i < pack.size(); ++i) scorers.push_back(split.scorer());
  for (const auto& indices : make_batches(order, batch_size)) {
    const Batch batch = split.collate(indices, BatchPadding::kLongest);
    std::vector<torch::Tensor> outputs;
    {
      const runtime::PrecisionScope scope(precision);
      outputs = pack.forward(batch);
    }
    for (size_t i = 0; i < pack.size(); ++i) scorers[i]->add(outputs[i].to(torch::kFloat), batch);
  }
  pack.train(was_training);
  std::vector<Score> scores;
  for (auto& scorer : scorers) scores.push_back(scorer->finish());
  return scores;
}

std::vector<TrainResult> train_pack(PackedSequenceClassifier& pack, const TrainingData& data,
                                    const std::vector<TrainerOptions>& options) {
  TORCH_CHECK(options.size() == pack.size(), "train_pack: ", pack.size(), " runs but ", options.size(), " options");
  check_packable(options);
  TORCH_CHECK(data.train && data.eval && (data.test || data.eval_is_test),
              "train_pack: TrainingData needs train and eval splits, and test unless eval_is_test");
  TORCH_CHECK(data.train->size() > 0, "train_pack: the training split is empty");
  const TrainerOptions& shared = options.front();
  TORCH_CHECK(shared.epochs() > 0 && shared.batch_size() > 0, "train_pack: epochs and batch_size must be positive");

  const auto start = Clock::now();
  const auto k = static_cast<double>(pack.size());
  const int64_t steps_per_epoch = batch_count(data.train->size(), shared.batch_size());
  std::vector<PackedRun> runs(pack.size());
  // As train_model: one seed fixes dropout (drawn once per call for the whole pack); the epoch orders
  // derive from it separately.
  torch::manual_seed(shared.seed());
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& model = pack.run(i);
    runs[i].result.parameters = count_parameters(model, model.head_prefixes());
    runs[i].optimizer = make_adamw(model, AdamWSettings().lr(options[i].lr()).weight_decay(options[i].weight_decay()));
    runs[i].peak_rates = group_learning_rates(*runs[i].optimizer);
    for (const auto& parameter : model.parameters()) {
      if (parameter.requires_grad()) runs[i].clipped.push_back(parameter);
    }
    runs[i].schedule.emplace(LinearWarmupDecayOptions(steps_per_epoch * shared.epochs())
                                 .peak_lr(options[i].lr())
                                 .warmup_ratio(options[i].warmup_ratio())
                                 .decay(options[i].lr_decay()));
  }
  const std::string label = fmt::format("{} (pack of {})", shared.label(), pack.size());
  std::optional<ProgressBar> progress;
  if (shared.progress()) {
    progress.emplace(ProgressOptions(steps_per_epoch * shared.epochs())
                         .label(label)
                         .unit("tok")
                         .interactive(shared.interactive()));
  }
  double training_seconds = 0;
  int64_t training_tokens = 0;
  const auto active = [&](size_t i) { return runs[i].result.ok(); };
  StepProfiler profiler(label);
  int64_t pack_steps = 0;
  pack.train(true);
  for (int64_t epoch = 0; epoch < shared.epochs(); ++epoch) {
    bool any_active = false;
    for (size_t i = 0; i < runs.size(); ++i) any_active |= active(i);
    if (!any_active) break;
    const auto epoch_start = Clock::now();
    for (auto& run : runs) {
      run.metrics = EpochMetrics();
      run.metrics.epoch = epoch + 1;
      run.loss_sum = 0;
    }
    int64_t batches = 0, epoch_tokens = 0;
    for (const auto& indices : training_batches(*data.train, shared, epoch)) {
      profiler.before_step(pack_steps++);
      const Batch batch = data.train->collate(indices, shared.padding());
      for (size_t i = 0; i < runs.size(); ++i) {
        if (!active(i)) continue;
        scale_learning_rates(*runs[i].optimizer, runs[i].peak_rates, options[i].lr(),
                             runs[i].schedule->lr(runs[i].result.steps));
        runs[i].optimizer->zero_grad();
      }
      std::vector<torch::Tensor> losses(runs.size());
      {
        const runtime::PrecisionScope scope(shared.precision());
        const auto outputs = pack.forward(batch);
        for (size_t i = 0; i < runs.size(); ++i) {
          if (active(i)) losses[i] = pack.run(i).batch_loss(outputs[i].to(torch::kFloat), batch);
        }
      }
      // One backward for all: the runs' parameters are disjoint, so each gets its own loss's gradient.
      torch::Tensor total;
      std::vector<double> values(runs.size(), 0.0);
      for (size_t i = 0; i < runs.size(); ++i) {
        if (!active(i)) continue;
        values[i] = losses[i].item<double>();
        if (!std::isfinite(values[i])) {
          runs[i].result.status = TrainStatus::kDiverged;
          runs[i].result.failure = fmt::format(
              "the training loss became {} at epoch {}, step {} (learning rate {:.3g}); lower the learning rate "
              "or enable gradient clipping (grad_clip)",
              values[i], epoch + 1, runs[i].result.steps + 1, runs[i].schedule->lr(runs[i].result.steps));
          continue;
        }
        total = total.defined() ? total + losses[i] : losses[i];
      }
      if (!total.defined()) break;  // every run diverged
      total.backward();
      for (size_t i = 0; i < runs.size(); ++i) {
        if (!active(i)) continue;
        if (shared.grad_clip() > 0) torch::nn::utils::clip_grad_norm_(runs[i].clipped, shared.grad_clip());
        runs[i].optimizer->step();
        ++runs[i].result.steps;
        runs[i].loss_sum += values[i];
      }
      ++batches;
      epoch_tokens += batch.tokens;
      if (progress) progress->advance(1, batch.tokens, {{"epoch", static_cast<double>(epoch + 1)}});
    }
    training_seconds += seconds_since(epoch_start);
    training_tokens += epoch_tokens;
    for (auto& run : runs) {
      if (!run.result.ok()) continue;
      run.metrics.train_loss = run.loss_sum / static_cast<double>(batches);
      run.metrics.train_tokens = epoch_tokens;
    }
    if (data.report_last_epoch && epoch + 1 < shared.epochs()) {
      for (auto& run : runs) {
        if (!run.result.ok()) continue;
        run.metrics.seconds = seconds_since(epoch_start) / k;
        run.result.epochs.push_back(run.metrics);
      }
      continue;
    }
    const auto eval = evaluate_pack(pack, *data.eval, shared.eval_batch_size(), shared.precision());
    const auto test = data.eval_is_test ? eval : evaluate_pack(pack, *data.test, shared.eval_batch_size(), shared.precision());
    for (size_t i = 0; i < runs.size(); ++i) {
      auto& run = runs[i];
      if (!run.result.ok()) continue;
      run.metrics.eval = eval[i].metrics;
      run.metrics.eval_score = eval[i].selection;
      run.metrics.test = test[i].metrics;
      run.metrics.test_score = test[i].selection;
      run.metrics.seconds = seconds_since(epoch_start) / k;
      // Strictly greater: the earliest epoch wins ties, as train_model.
      if (run.result.best_epoch == 0 || run.metrics.eval_score > run.result.eval_score) {
        run.result.best_epoch = run.metrics.epoch;
        run.result.eval_score = run.metrics.eval_score;
        run.result.test = run.metrics.test;
        run.result.test_score = run.metrics.test_score;
        if (shared.keep_best_state()) run.result.best_state = tuned_state(pack.run(i), pack.run(i).head_prefixes());
      }
      run.result.epochs.push_back(run.metrics);
    }
  }
  if (progress) progress->finish();
  std::vector<TrainResult> results;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& result = runs[i].result;
    if (shared.measure_ranks()) result.site_ranks = site_ranks(pack.run(i));
    result.wall_seconds = seconds_since(start) / k;
    result.train_tokens_per_second = training_seconds > 0 ? training_tokens * k / training_seconds : 0.0;
    result.peak_rss_mib = peak_rss_mib();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace capaboost
