#include "train/trainer.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "data/batching.h"
#include "measure/numerical_rank.h"
#include "metrics/glue_metrics.h"
#include "runtime/process_memory.h"
#include "train/lr_schedule.h"
#include "train/optimizer_setup.h"

namespace capaboost {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<torch::Tensor> trainable_parameters(torch::nn::Module& model) {
  std::vector<torch::Tensor> parameters;
  for (const auto& parameter : model.parameters()) {
    if (parameter.requires_grad()) parameters.push_back(parameter);
  }
  return parameters;
}

// Restores the module's training flag when evaluation ends, whatever happens inside.
class EvalModeGuard {
 public:
  explicit EvalModeGuard(torch::nn::Module& model) : model_(model), was_training_(model.is_training()) { model.eval(); }
  ~EvalModeGuard() { model_.train(was_training_); }

 private:
  torch::nn::Module& model_;
  bool was_training_;
};

}  // namespace

MetricValues evaluate_sequence_classifier(RobertaForSequenceClassificationImpl& model, const TaskInfo& task,
                                          const TokenizedDataset& dataset, int64_t batch_size) {
  TORCH_CHECK(dataset.size() > 0, "evaluate_sequence_classifier: the ", task.name, " evaluation split is empty");
  EvalModeGuard eval_mode(model);
  torch::NoGradGuard no_grad;
  std::vector<int64_t> order(static_cast<size_t>(dataset.size()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::vector<int64_t> predicted_classes;
  std::vector<double> predicted_scores;
  for (const auto& indices : make_batches(order, batch_size)) {
    const Batch batch = dataset.collate(indices);
    const torch::Tensor logits = model.forward(batch.input_ids, batch.attention_mask).logits;  // (B, num_labels)
    if (task.regression) {
      const torch::Tensor scores = logits.select(1, 0).to(torch::kFloat64).contiguous();  // (B)
      predicted_scores.insert(predicted_scores.end(), scores.data_ptr<double>(), scores.data_ptr<double>() + scores.numel());
    } else {
      const torch::Tensor classes = logits.argmax(1).contiguous();  // (B) int64
      predicted_classes.insert(predicted_classes.end(), classes.data_ptr<int64_t>(),
                               classes.data_ptr<int64_t>() + classes.numel());
    }
  }
  return task.regression ? glue_metrics(task, predicted_scores, dataset.score_labels())
                         : glue_metrics(task, predicted_classes, dataset.class_labels());
}

TrainResult train_sequence_classifier(RobertaForSequenceClassificationImpl& model, const TrainingData& data,
                                      const TrainerOptions& options) {
  TORCH_CHECK(data.task != nullptr, "train_sequence_classifier: TrainingData::task is not set");
  const TaskInfo& task = *data.task;
  TORCH_CHECK(data.train.size() > 0, "train_sequence_classifier: the ", task.name, " training split is empty");
  TORCH_CHECK(options.epochs() > 0 && options.batch_size() > 0,
              "train_sequence_classifier: epochs and batch_size must be positive");
  TORCH_CHECK(data.train.regression() == task.regression,
              "train_sequence_classifier: the training data was tokenized for another task than ", task.name);

  const auto start = Clock::now();
  TrainResult result;
  result.parameters = count_parameters(model, options.head_prefixes());

  // One seed fixes dropout; the epoch orders derive from it separately (data/batching.h), so that
  // changing the model's randomness consumption never changes the data order.
  torch::manual_seed(options.seed());
  auto optimizer = make_adamw(model, AdamWSettings().lr(options.lr()).weight_decay(options.weight_decay()));
  const std::vector<torch::Tensor> clipped = trainable_parameters(model);
  const int64_t steps_per_epoch = batch_count(data.train.size(), options.batch_size());
  const LinearWarmupDecay schedule(LinearWarmupDecayOptions(steps_per_epoch * options.epochs())
                                       .peak_lr(options.lr())
                                       .warmup_ratio(options.warmup_ratio()));

  std::optional<ProgressBar> progress;
  if (options.progress()) {
    progress.emplace(ProgressOptions(steps_per_epoch * options.epochs())
                         .label(options.label())
                         .unit("tok")
                         .interactive(options.interactive()));
  }
  double training_seconds = 0;
  int64_t training_tokens = 0;
  model.train();
  for (int64_t epoch = 0; epoch < options.epochs() && result.ok(); ++epoch) {
    const auto epoch_start = Clock::now();
    EpochMetrics metrics;
    metrics.epoch = epoch + 1;
    double loss_sum = 0;
    int64_t batches = 0;
    for (const auto& indices : make_batches(epoch_order(data.train.size(), options.seed(), epoch), options.batch_size())) {
      const Batch batch = data.train.collate(indices, options.padding());
      set_learning_rate(*optimizer, schedule.lr(result.steps));
      optimizer->zero_grad();
      const torch::Tensor logits = model.forward(batch.input_ids, batch.attention_mask).logits;  // (B, num_labels)
      const torch::Tensor loss = model.loss(logits, batch.labels);
      const double loss_value = loss.item<double>();
      if (!std::isfinite(loss_value)) {
        result.status = "diverged";
        result.failure = fmt::format(
            "the training loss became {} at epoch {}, step {} (learning rate {:.3g}); lower the learning rate "
            "or enable gradient clipping (grad_clip)",
            loss_value, epoch + 1, result.steps + 1, schedule.lr(result.steps));
        break;
      }
      loss.backward();
      if (options.grad_clip() > 0) torch::nn::utils::clip_grad_norm_(clipped, options.grad_clip());
      optimizer->step();
      ++result.steps;
      ++batches;
      loss_sum += loss_value;
      metrics.train_tokens += batch.tokens;
      if (progress) {
        progress->advance(1, batch.tokens, {{"epoch", static_cast<double>(epoch + 1)}, {"loss", loss_sum / batches}});
      }
    }
    training_seconds += seconds_since(epoch_start);
    training_tokens += metrics.train_tokens;
    if (!result.ok()) break;
    metrics.train_loss = loss_sum / static_cast<double>(batches);
    metrics.eval = evaluate_sequence_classifier(model, task, data.eval, options.eval_batch_size());
    metrics.eval_score = selection_score(task, metrics.eval);
    metrics.test = data.eval_is_test ? metrics.eval
                                     : evaluate_sequence_classifier(model, task, data.test, options.eval_batch_size());
    metrics.test_score = selection_score(task, metrics.test);
    metrics.seconds = seconds_since(epoch_start);
    // Strictly greater: the earliest epoch wins ties, as Hugging Face's load_best_model_at_end.
    if (result.best_epoch == 0 || metrics.eval_score > result.eval_score) {
      result.best_epoch = metrics.epoch;
      result.eval_score = metrics.eval_score;
      result.test = metrics.test;
      result.test_score = metrics.test_score;
    }
    result.epochs.push_back(std::move(metrics));
  }
  if (progress) progress->finish();
  if (options.measure_ranks()) {
    for (const auto& [site, rank] : site_ranks(model)) result.site_ranks.emplace_back(site, rank.rank);
  }
  result.wall_seconds = seconds_since(start);
  result.train_tokens_per_second = training_seconds > 0 ? training_tokens / training_seconds : 0.0;
  result.peak_rss_mib = peak_rss_mib();
  return result;
}

}  // namespace capaboost
