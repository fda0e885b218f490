#include "pretrain/mlm_pretrainer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "pretrain/neighbour_count_model.h"
#include "train/lr_schedule.h"
#include "train/optimizer_setup.h"
#include "train/progress_bar.h"

namespace capaboost {
namespace {

// Held-out masks use tags far below any training step, so they never coincide with a training mask.
constexpr int64_t kHeldoutMaskTag = -(int64_t{1} << 40);

// Block indices of each batch: epoch e visits all blocks in the permutation seeded by (seed, e), batches
// run on across epoch ends, so any batch size works with any number of blocks.
class BlockSampler {
 public:
  BlockSampler(int64_t num_blocks, uint64_t seed) : num_blocks_(num_blocks), seed_(seed) {}

  torch::Tensor batch(int64_t step, int64_t batch_size) {
    std::vector<int64_t> indices(static_cast<size_t>(batch_size));
    for (int64_t i = 0; i < batch_size; ++i) {
      const int64_t position = step * batch_size + i;
      const int64_t epoch = position / num_blocks_;
      if (epoch != epoch_) {
        auto generator =
            at::make_generator<at::CPUGeneratorImpl>(mix_seed(seed_, static_cast<uint64_t>(epoch)));
        permutation_ = torch::randperm(num_blocks_, generator, torch::kInt64);
        epoch_ = epoch;
      }
      indices[static_cast<size_t>(i)] = permutation_[position % num_blocks_].item<int64_t>();
    }
    return torch::tensor(indices, torch::kInt64);
  }

 private:
  int64_t num_blocks_;
  uint64_t seed_;
  int64_t epoch_ = -1;
  torch::Tensor permutation_;
};

// The most frequent id of `ids` that is not special: the unigram baseline's constant prediction.
int64_t most_frequent_token(const torch::Tensor& ids, const MlmMasker& masker) {
  const auto counts =
      torch::bincount(ids.masked_select(masker.maskable(ids)), {}, masker.options().vocab_size());
  return counts.argmax().item<int64_t>();
}

struct HeldoutScore {
  double loss = 0.0;
  double accuracy = 0.0;
  double masked_accuracy = 0.0;
  double baseline_accuracy = 0.0;
  double no_context_accuracy = 0.0;
  double neighbour_count_masked_accuracy = 0.0;
  int64_t targets = 0;
};

HeldoutScore evaluate(MaskedLMImpl& model, const torch::Tensor& blocks, const MlmMasker& masker,
                      int64_t batch_size, int64_t baseline_token, const NeighbourCountModel& counts) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  double loss_sum = 0.0;
  int64_t correct = 0;
  int64_t masked_correct = 0;
  int64_t masked_targets = 0;
  int64_t baseline_correct = 0;
  int64_t no_context_correct = 0;
  int64_t count_masked_correct = 0;
  int64_t targets = 0;
  for (int64_t begin = 0, chunk = 0; begin < blocks.size(0); begin += batch_size, ++chunk) {
    const auto ids = blocks.slice(0, begin, std::min(begin + batch_size, blocks.size(0)));
    const auto batch = masker.mask(ids, kHeldoutMaskTag + chunk);
    const auto targeted = batch.labels.reshape({-1}) != kIgnoreLabel;  // (B·T)
    if (!targeted.any().item<bool>()) continue;
    const auto out = model.forward(batch.input_ids, batch.labels);
    const int64_t n = out.labels.size(0);
    // The 10% of targets left unchanged can be answered by copying the input, so overall accuracy
    // mixes context with copying. Targets shown as <mask> measure context alone, and the no-context
    // baseline (copy a visible token, else guess the unigram) is what overall accuracy must beat.
    const auto shown = batch.input_ids.reshape({-1}).masked_select(targeted);  // (N), the targets' inputs
    const auto is_mask = shown == masker.options().mask_id();                  // (N)
    const auto hits = out.logits.argmax(-1) == out.labels;                     // (N)
    const auto unigram_hits = out.labels == baseline_token;                    // (N)
    const auto count_hits = counts.predict(batch.input_ids).reshape({-1}).masked_select(targeted) ==
                            out.labels;  // (N)
    loss_sum += out.loss.item<double>() * static_cast<double>(n);
    correct += hits.sum().item<int64_t>();
    masked_correct += hits.logical_and(is_mask).sum().item<int64_t>();
    masked_targets += is_mask.sum().item<int64_t>();
    baseline_correct += unigram_hits.sum().item<int64_t>();
    no_context_correct += torch::where(is_mask, unigram_hits, shown == out.labels).sum().item<int64_t>();
    count_masked_correct += count_hits.logical_and(is_mask).sum().item<int64_t>();
    targets += n;
  }
  model.train(was_training);
  TORCH_CHECK(targets > 0, "MLM pre-training: the held-out blocks produced no masked position to evaluate");
  const auto total = static_cast<double>(targets);
  const auto share = [total](int64_t count) { return static_cast<double>(count) / total; };
  const auto masked_share = [masked_targets](int64_t count) {
    return masked_targets > 0 ? static_cast<double>(count) / static_cast<double>(masked_targets) : 0.0;
  };
  return {loss_sum / total,
          share(correct),
          masked_share(masked_correct),
          share(baseline_correct),
          share(no_context_correct),
          masked_share(count_masked_correct),
          targets};
}

}  // namespace

nlohmann::json MlmPretrainOptions::to_json() const {
  return {{"steps", steps()},
          {"batch_size", batch_size()},
          {"peak_lr", peak_lr()},
          {"warmup_ratio", warmup_ratio()},
          {"weight_decay", weight_decay()},
          {"max_grad_norm", max_grad_norm()},
          {"adam_beta2", adam_beta2()},
          {"adam_eps", adam_eps()},
          {"seed", seed()},
          {"eval_every", eval_every()},
          {"eval_max_blocks", eval_max_blocks()}};
}

nlohmann::json MlmPretrainResult::to_json() const {
  auto log_json = nlohmann::json::array();
  for (const auto& point : log) {
    log_json.push_back({{"step", point.step},
                        {"train_loss", point.train_loss},
                        {"heldout_loss", point.heldout_loss},
                        {"heldout_accuracy", point.heldout_accuracy},
                        {"heldout_masked_accuracy", point.heldout_masked_accuracy},
                        {"lr", point.lr},
                        {"elapsed_seconds", point.elapsed_seconds}});
  }
  return {{"log", log_json},
          {"final_heldout_loss", final_heldout_loss},
          {"final_heldout_accuracy", final_heldout_accuracy},
          {"final_heldout_masked_accuracy", final_heldout_masked_accuracy},
          {"baseline_accuracy", baseline_accuracy},
          {"no_context_accuracy", no_context_accuracy},
          {"neighbour_count_masked_accuracy", neighbour_count_masked_accuracy},
          {"baseline_token", baseline_token},
          {"heldout_targets", heldout_targets},
          {"steps", steps},
          {"train_tokens", train_tokens},
          {"wall_seconds", wall_seconds},
          {"tokens_per_second", tokens_per_second}};
}

MlmPretrainResult pretrain_mlm(MaskedLMImpl& model, const TextBlocks& train,
                               const TextBlocks& heldout, const MlmMasker& masker,
                               const MlmPretrainOptions& options) {
  TORCH_CHECK(options.steps() > 0 && options.batch_size() > 0,
              "MlmPretrainOptions: steps and batch_size must be positive, got ", options.steps(), " and ",
              options.batch_size());
  TORCH_CHECK(train.ids.defined() && train.ids.size(0) > 0, "MLM pre-training: no training blocks");
  TORCH_CHECK(heldout.ids.defined() && heldout.ids.size(0) > 0, "MLM pre-training: no held-out blocks");
  TORCH_CHECK(train.ids.size(1) <= model.max_length(), "MLM pre-training: blocks of ", train.ids.size(1),
              " ids are longer than the model's longest input (", model.max_length(),
              " tokens); raise max_position_embeddings or shorten the blocks");
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  // Dropout (ParallelDropout) draws its seeds from torch's default generator.
  torch::manual_seed(options.seed());

  auto optimizer = make_adamw(model, AdamWSettings()
                                         .lr(options.peak_lr())
                                         .weight_decay(options.weight_decay())
                                         .beta2(options.adam_beta2())
                                         .eps(options.adam_eps()));
  const LinearWarmupDecay schedule(LinearWarmupDecayOptions(options.steps())
                                       .peak_lr(options.peak_lr())
                                       .warmup_ratio(options.warmup_ratio()));
  BlockSampler sampler(train.ids.size(0), mix_seed(options.seed(), 0x626c6f636b73ULL));  // "blocks"
  const auto heldout_ids =
      options.eval_max_blocks() > 0
          ? heldout.ids.slice(0, 0, std::min(options.eval_max_blocks(), heldout.ids.size(0)))
          : heldout.ids;

  MlmPretrainResult result;
  result.baseline_token = most_frequent_token(train.ids, masker);
  const NeighbourCountModel counts(train.ids, masker.maskable(train.ids), masker.options().vocab_size(),
                                   result.baseline_token);
  const int64_t tokens_per_step = options.batch_size() * train.ids.size(1);
  const auto parameters = model.parameters();

  ProgressBar bar(ProgressOptions(options.steps()).label(options.label()).unit("tok"));
  double train_seconds = 0.0;
  double loss_since_eval = 0.0;
  int64_t steps_since_eval = 0;
  model.train();
  for (int64_t step = 0; step < options.steps(); ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    const double lr = schedule.lr(step);
    set_learning_rate(*optimizer, lr);
    const auto batch =
        masker.mask(train.ids.index_select(0, sampler.batch(step, options.batch_size())), step);
    optimizer->zero_grad();
    const auto out = model.forward(batch.input_ids, batch.labels);
    const double loss = out.loss.item<double>();
    TORCH_CHECK(std::isfinite(loss), "MLM pre-training diverged: the training loss is ", loss, " at step ",
                step + 1, " of ", options.steps(), " (learning rate ", lr,
                "); lower peak_lr or lengthen the warm-up");
    out.loss.backward();
    if (options.max_grad_norm() > 0) torch::nn::utils::clip_grad_norm_(parameters, options.max_grad_norm());
    optimizer->step();
    train_seconds += seconds_since(step_start);
    loss_since_eval += loss;
    ++steps_since_eval;
    if (options.show_progress()) bar.advance(1, tokens_per_step, {{"loss", loss}, {"lr", lr}});

    const bool last = step + 1 == options.steps();
    if (last || (options.eval_every() > 0 && (step + 1) % options.eval_every() == 0)) {
      const auto score = evaluate(model, heldout_ids, masker, options.batch_size(), result.baseline_token, counts);
      MlmEvalPoint point{step + 1,   loss_since_eval / static_cast<double>(steps_since_eval),
                         score.loss, score.accuracy,
                         score.masked_accuracy, lr,
                         seconds_since(start)};
      result.log.push_back(point);
      result.baseline_accuracy = score.baseline_accuracy;
      result.no_context_accuracy = score.no_context_accuracy;
      result.neighbour_count_masked_accuracy = score.neighbour_count_masked_accuracy;
      result.heldout_targets = score.targets;
      loss_since_eval = 0.0;
      steps_since_eval = 0;
      if (options.show_progress()) {
        fmt::print(stderr,
                   "{} step {}: train loss {:.4f}, held-out loss {:.4f}, accuracy {:.4f} (no context {:.4f}), "
                   "at <mask> {:.4f} (unigram {:.4f}, neighbour counts {:.4f})\n",
                   options.label(), point.step, point.train_loss, point.heldout_loss, point.heldout_accuracy,
                   score.no_context_accuracy, point.heldout_masked_accuracy, score.baseline_accuracy,
                   score.neighbour_count_masked_accuracy);
      }
    }
  }
  if (options.show_progress()) bar.finish();

  result.steps = options.steps();
  result.train_tokens = options.steps() * tokens_per_step;
  result.final_heldout_loss = result.log.back().heldout_loss;
  result.final_heldout_accuracy = result.log.back().heldout_accuracy;
  result.final_heldout_masked_accuracy = result.log.back().heldout_masked_accuracy;
  result.wall_seconds = seconds_since(start);
  result.tokens_per_second = static_cast<double>(result.train_tokens) / train_seconds;
  return result;
}

}  // namespace capaboost
