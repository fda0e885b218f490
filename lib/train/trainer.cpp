#include "train/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "checkpoint/tuned_state.h"
#include "data/batching.h"
#include "data/permutation.h"
#include "measure/numerical_rank.h"
#include "measure/parameter_count.h"
#include "runtime/device.h"
#include "runtime/process_memory.h"
#include "train/lr_schedule.h"
#include "train/optimizer_setup.h"
#include "train/step_profiler.h"
#include "util/sha256.h"

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

// The L2 norm of the gradients of `parameters` (those that have one), as clip_grad_norm_ computes it
// before clipping: for runs without clipping, whose curves still show it.
double gradient_norm(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> norms;
  for (const auto& parameter : parameters) {
    if (parameter.grad().defined()) norms.push_back(parameter.grad().norm());
  }
  return norms.empty() ? 0.0 : torch::stack(norms).norm().item<double>();
}

// Appends a scored split's metrics, score and loss under `prefix` (eval/…, test/…) at `step`.
void add_split_scalars(std::vector<ScalarPoint>& scalars, int64_t step, double seconds, const std::string& prefix,
                       const Score& score) {
  for (const auto& [name, value] : score.metrics) scalars.push_back({step, prefix + "/" + name, value, seconds});
  scalars.push_back({step, prefix + "/score", score.selection, seconds});
  if (score.loss) scalars.push_back({step, prefix + "/loss", *score.loss, seconds});
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

// `batch` with its tensors on `device`: the model's inputs and the loss's labels live where the model
// does. On the CPU (every run here) it is the batch itself.
Batch on_device(const Batch& batch, const torch::Device& device) {
  if (device.is_cpu()) return batch;
  Batch moved = batch;
  for (auto& [name, tensor] : moved.inputs) tensor = tensor.to(device, /*non_blocking=*/true);
  if (moved.labels.defined()) moved.labels = moved.labels.to(device, /*non_blocking=*/true);
  return moved;
}

}  // namespace

std::vector<std::vector<int64_t>> training_batches(const TrainingSplit& split, const TrainerOptions& options,
                                                   int64_t epoch) {
  auto order = epoch_order(split.size(), options.seed(), epoch);
  if (!options.group_by_length()) return make_batches(order, options.batch_size());
  std::vector<int64_t> lengths(static_cast<size_t>(split.size()));
  for (int64_t i = 0; i < split.size(); ++i) lengths[static_cast<size_t>(i)] = split.length(i);
  auto batches = length_grouped_batches(order, lengths, options.batch_size(), options.mega_batch_mult());
  // A stream of its own: the epoch orders use derive_seed(seed, epoch) itself.
  if (options.shuffle_grouped_batches())
    batches = shuffled_batches(std::move(batches), derive_seed(derive_seed(options.seed(), epoch), 1));
  return batches;
}

Score evaluate_model(TaskModelImpl& model, const TrainingSplit& split, int64_t batch_size,
                     runtime::Precision precision) {
  TORCH_CHECK(split.size() > 0, "evaluate_model: the evaluation split is empty");
  EvalModeGuard eval_mode(model);
  torch::NoGradGuard no_grad;
  std::vector<int64_t> order(static_cast<size_t>(split.size()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  // Shortest examples first, so each batch pads to about its own examples' length: in the index order a
  // batch of 64 pads every sentence to its longest. Scorers place each output by batch.indices, so the
  // metrics do not depend on the order; the padding around an example changes only the rounding of its
  // masked sums. Splits without lengths (images) keep the index order.
  std::vector<int64_t> lengths(order.size());
  for (size_t i = 0; i < order.size(); ++i) lengths[i] = split.length(static_cast<int64_t>(i));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return lengths[static_cast<size_t>(a)] < lengths[static_cast<size_t>(b)];
  });
  const auto start = Clock::now();
  auto scorer = split.scorer();
  const torch::Device device = runtime::module_device(model);
  double loss_sum = 0;
  bool every_batch_labelled = true;
  int64_t tokens = 0, examples = 0;
  for (const auto& indices : make_batches(order, batch_size)) {
    const Batch batch = split.collate(indices, BatchPadding::kLongest);
    const Batch on_model = on_device(batch, device);
    torch::Tensor outputs;
    {
      const runtime::PrecisionScope scope(precision, device.type());
      outputs = model.forward_batch(on_model).to(torch::kFloat);
    }
    // The loss of splits whose batches carry labels (classification, regression, images); question
    // answering's eval features carry none. batch_loss is a mean over the batch: weighted back by size.
    every_batch_labelled = every_batch_labelled && batch.labels.defined();
    if (every_batch_labelled) loss_sum += model.batch_loss(outputs, on_model).item<double>() * batch.examples;
    tokens += batch.tokens;
    examples += batch.examples;
    // Scorers read fp32 on the CPU, whatever device and precision the products ran in.
    scorer->add(outputs.to(torch::kCPU), batch);
  }
  Score score = scorer->finish();
  if (every_batch_labelled && examples > 0) score.loss = loss_sum / static_cast<double>(examples);
  score.tokens = tokens;
  score.examples = examples;
  score.seconds = seconds_since(start);
  return score;
}

TrainResult train_model(TaskModelImpl& model, const TrainingData& data, const TrainerOptions& options,
                        TrainingHooks* hooks) {
  TORCH_CHECK(data.train && data.eval && (data.test || data.eval_is_test),
              "train_model: TrainingData needs train and eval splits, and test unless eval_is_test");
  TORCH_CHECK(data.train->size() > 0, "train_model: the training split is empty");
  TORCH_CHECK(options.epochs() > 0 && options.batch_size() > 0, "train_model: epochs and batch_size must be positive");

  const auto start = Clock::now();
  TrainResult result;
  result.parameters = count_parameters(model, model.head_prefixes());

  // One seed fixes dropout; the epoch orders derive from it separately (data/batching.h), so that
  // changing the model's randomness consumption never changes the data order.
  torch::manual_seed(options.seed());
  auto settings = AdamWSettings().lr(options.lr()).weight_decay(options.weight_decay());
  if (hooks) settings.lr_of([hooks](const std::string& name) { return hooks->learning_rate_of(name); });
  auto optimizer = make_adamw(model, settings);
  // Groups with a learning rate of their own follow the schedule in proportion to the run's.
  const std::vector<double> peak_rates = group_learning_rates(*optimizer);
  const std::vector<torch::Tensor> clipped = trainable_parameters(model);
  const int64_t steps_per_epoch = batch_count(data.train->size(), options.batch_size());
  const LinearWarmupDecay schedule(LinearWarmupDecayOptions(steps_per_epoch * options.epochs())
                                       .peak_lr(options.lr())
                                       .warmup_ratio(options.warmup_ratio())
                                       .decay(options.lr_decay()));

  // Text splits count real tokens (their examples have lengths); image splits count examples, so the
  // bar and the record never show a rate of 0 tokens per second for a run that has no tokens.
  const bool counts_tokens = data.train->size() > 0 && data.train->length(0) > 0;
  std::optional<ProgressBar> progress;
  if (options.progress()) {
    progress.emplace(ProgressOptions(steps_per_epoch * options.epochs())
                         .label(options.label())
                         .unit(counts_tokens ? "tok" : "ex")
                         .interactive(options.interactive()));
  }
  double training_seconds = 0, evaluation_seconds = 0;
  int64_t training_tokens = 0, training_examples = 0, evaluation_tokens = 0, evaluation_examples = 0;
  reset_peak_rss();
  // The curves (train/training_scalars.h): `tag` at the step just taken, `seconds` into the run.
  const auto log_scalar = [&](const std::string& tag, double value, double seconds) {
    result.scalars.push_back({result.steps, tag, value, seconds});
  };
  const torch::Device device = runtime::module_device(model);
  StepProfiler profiler(options.label());
  Sha256 data_order;
  model.train();
  for (int64_t epoch = 0; epoch < options.epochs() && result.ok(); ++epoch) {
    const auto epoch_start = Clock::now();
    EpochMetrics metrics;
    metrics.epoch = epoch + 1;
    double loss_sum = 0;
    int64_t batches = 0;
    for (const auto& indices : training_batches(*data.train, options, epoch)) {
      profiler.before_step(result.steps);
      data_order.update({reinterpret_cast<const char*>(indices.data()), indices.size() * sizeof(int64_t)});
      const Batch batch = on_device(data.train->collate(indices, options.padding()), device);
      scale_learning_rates(*optimizer, peak_rates, options.lr(), schedule.lr(result.steps));
      optimizer->zero_grad();
      torch::Tensor outputs, loss, regularizer;
      {
        // bf16 runs: the products inside in bf16, the loss from fp32 outputs; backward outside the scope.
        const runtime::PrecisionScope scope(options.precision(), device.type());
        outputs = model.forward_batch(batch).to(torch::kFloat);  // (B, num_labels) for classification
        loss = model.batch_loss(outputs, batch);
        regularizer = hooks ? hooks->regularization_loss(model, batch, outputs) : torch::Tensor();
      }
      // The logged loss is the task's, comparable across methods; a method's regulariser trains too.
      const double loss_value = loss.item<double>();
      const double step_lr = schedule.lr(result.steps);
      const double regularizer_value = regularizer.defined() ? regularizer.item<double>() : 0.0;
      if (regularizer.defined()) loss = loss + regularizer;
      if (!std::isfinite(loss_value) || !std::isfinite(regularizer_value)) {
        result.status = TrainStatus::kDiverged;
        result.failure = fmt::format(
            "the training loss became {} at epoch {}, step {} (learning rate {:.3g}); lower the learning rate "
            "or enable gradient clipping (grad_clip)",
            loss_value, epoch + 1, result.steps + 1, schedule.lr(result.steps));
        break;
      }
      loss.backward();
      const double grad_norm = options.grad_clip() > 0 ? torch::nn::utils::clip_grad_norm_(clipped, options.grad_clip())
                                                       : gradient_norm(clipped);
      optimizer->step();
      ++result.steps;
      const double step_seconds = seconds_since(start);  // one clock read for the step's three points
      log_scalar("train/loss", loss_value, step_seconds);
      log_scalar("train/lr", step_lr, step_seconds);
      log_scalar("train/grad_norm", grad_norm, step_seconds);
      if (hooks) hooks->after_step(result.steps, steps_per_epoch * options.epochs());
      ++batches;
      loss_sum += loss_value;
      metrics.train_tokens += batch.tokens;
      metrics.train_examples += batch.examples;
      if (progress) {
        progress->advance(1, counts_tokens ? batch.tokens : batch.examples,
                          {{"epoch", static_cast<double>(epoch + 1)}, {"loss", loss_sum / batches}});
      }
    }
    const double epoch_training_seconds = seconds_since(epoch_start);
    training_seconds += epoch_training_seconds;
    training_tokens += metrics.train_tokens;
    training_examples += metrics.train_examples;
    if (!result.ok()) break;
    metrics.train_loss = loss_sum / static_cast<double>(batches);
    const double epoch_end_seconds = seconds_since(start);
    log_scalar("train/epoch_loss", metrics.train_loss, epoch_end_seconds);
    if (epoch_training_seconds > 0) {
      log_scalar(counts_tokens ? "train/tokens_per_second" : "train/examples_per_second",
                 static_cast<double>(counts_tokens ? metrics.train_tokens : metrics.train_examples) / epoch_training_seconds,
                 epoch_end_seconds);
    }
    // Without model selection only the last epoch is reported: scoring the (test) eval split after every
    // epoch would only draw a curve, at the cost of a full test pass per epoch.
    if (data.report_last_epoch && epoch + 1 < options.epochs()) {
      metrics.seconds = seconds_since(epoch_start);
      result.epochs.push_back(std::move(metrics));
      continue;
    }
    const Score eval = evaluate_model(model, *data.eval, options.eval_batch_size(), options.precision());
    const Score test = data.eval_is_test ? eval : evaluate_model(model, *data.test, options.eval_batch_size(), options.precision());
    for (const Score* pass : data.eval_is_test ? std::vector<const Score*>{&eval} : std::vector<const Score*>{&eval, &test}) {
      evaluation_seconds += pass->seconds;
      evaluation_tokens += pass->tokens;
      evaluation_examples += pass->examples;
    }
    const double scored_seconds = seconds_since(start);
    add_split_scalars(result.scalars, result.steps, scored_seconds, "eval", eval);
    if (eval.seconds > 0 && counts_tokens) {
      log_scalar("eval/tokens_per_second", static_cast<double>(eval.tokens) / eval.seconds, scored_seconds);
    }
    if (!data.eval_is_test) add_split_scalars(result.scalars, result.steps, scored_seconds, "test", test);
    metrics.eval = eval.metrics;
    metrics.eval_score = eval.selection;
    metrics.eval_loss = eval.loss;
    metrics.test = test.metrics;
    metrics.test_score = test.selection;
    metrics.seconds = seconds_since(epoch_start);
    // Strictly greater: the earliest epoch wins ties, as Hugging Face's load_best_model_at_end.
    if (result.best_epoch == 0 || metrics.eval_score > result.eval_score) {
      result.best_epoch = metrics.epoch;
      result.eval_score = metrics.eval_score;
      result.test = metrics.test;
      result.test_score = metrics.test_score;
      if (options.keep_best_state()) result.best_state = tuned_state(model, model.head_prefixes());
    }
    result.epochs.push_back(std::move(metrics));
  }
  if (progress) progress->finish();
  if (hooks) result.method_summary = hooks->summary();
  if (options.measure_ranks()) {
    result.site_ranks = site_ranks(model);
  }
  result.data_order_sha256 = data_order.hex_digest();
  result.wall_seconds = seconds_since(start);
  result.train_tokens_per_second = training_seconds > 0 ? training_tokens / training_seconds : 0.0;
  result.train_examples_per_second = training_seconds > 0 ? training_examples / training_seconds : 0.0;
  result.eval_tokens_per_second = evaluation_seconds > 0 && counts_tokens ? evaluation_tokens / evaluation_seconds : 0.0;
  result.eval_examples_per_second = evaluation_seconds > 0 ? evaluation_examples / evaluation_seconds : 0.0;
  result.peak_rss_mib = peak_rss_mib();
  return result;
}

}  // namespace capaboost
