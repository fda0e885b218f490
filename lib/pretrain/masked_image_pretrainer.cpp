#include "pretrain/masked_image_pretrainer.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "data/permutation.h"
#include "train/lr_schedule.h"
#include "train/optimizer_setup.h"
#include "train/progress_bar.h"

namespace capaboost {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Masks of `count` images numbered from `first` in stream `seed`: (count, patches) bool.
torch::Tensor patch_masks(int64_t count, int64_t patches, double ratio, uint64_t seed, uint64_t first) {
  std::vector<torch::Tensor> rows;
  for (int64_t i = 0; i < count; ++i) rows.push_back(random_patch_mask(patches, ratio, seed, first + uint64_t(i)));
  return torch::stack(rows);
}

// Masked-pixel L1 on held-out images in batches, with their fixed masks (M, patches); no gradients.
double heldout_loss(VitForMaskedImageModelingImpl& model, const torch::Tensor& heldout, const torch::Tensor& heldout_masks,
                    int64_t batch_size) {
  torch::NoGradGuard no_grad;
  model.eval();
  double total = 0;
  for (int64_t start = 0; start < heldout.size(0); start += batch_size) {
    const int64_t count = std::min(batch_size, heldout.size(0) - start);
    const auto masks = heldout_masks.slice(0, start, start + count);
    // The loss is a mean over masked pixels; each batch masks the same number per image, so weighting by
    // the image count gives the mean over all held-out masked pixels.
    total += model.forward(heldout.slice(0, start, start + count), masks).loss.item<double>() * double(count);
  }
  model.train();
  return total / double(heldout.size(0));
}

double mean_image_loss(const torch::Tensor& train, const torch::Tensor& heldout, const torch::Tensor& heldout_masks,
                       int64_t patch_size) {
  const auto mean = train.mean(0, /*keepdim=*/true).expand_as(heldout);
  return masked_image_loss(heldout, mean, heldout_masks, patch_size).item<double>();
}

}  // namespace

nlohmann::json MaskedImagePretrainOptions::to_json() const {
  return {{"steps", steps()},           {"batch_size", batch_size()},       {"peak_lr", peak_lr()},
          {"warmup_ratio", warmup_ratio()}, {"weight_decay", weight_decay()}, {"max_grad_norm", max_grad_norm()},
          {"mask_ratio", mask_ratio()}, {"seed", seed()},                   {"eval_every", eval_every()}};
}

nlohmann::json MaskedImagePretrainResult::to_json() const {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : log) {
    points.push_back({{"step", p.step},
                      {"train_loss", p.train_loss},
                      {"heldout_loss", p.heldout_loss},
                      {"lr", p.lr},
                      {"elapsed_seconds", p.elapsed_seconds}});
  }
  return {{"log", points},
          {"mean_image_heldout_loss", mean_image_heldout_loss},
          {"final_heldout_loss", final_heldout_loss},
          {"steps", steps},
          {"wall_seconds", wall_seconds},
          {"images_per_second", images_per_second}};
}

torch::Tensor random_patch_mask(int64_t patches, double ratio, uint64_t seed, uint64_t index) {
  TORCH_CHECK(ratio > 0 && ratio < 1, "masked image modelling: mask_ratio must be in (0, 1), got ", ratio);
  const auto masked = static_cast<int64_t>(std::llround(ratio * double(patches)));
  const auto order = seeded_permutation(patches, derive_seed(seed, index));
  std::vector<uint8_t> flags(size_t(patches), 0);
  for (int64_t i = 0; i < masked; ++i) flags[size_t(order[size_t(i)])] = 1;
  return torch::tensor(flags, torch::kUInt8).to(torch::kBool);
}

MaskedImagePretrainResult pretrain_masked_images(VitForMaskedImageModelingImpl& model, const torch::Tensor& train,
                                                 const torch::Tensor& heldout, const MaskedImagePretrainOptions& options) {
  TORCH_CHECK(train.dim() == 4 && heldout.dim() == 4 && train.size(0) > 0 && heldout.size(0) > 0,
              "masked image modelling: train and held-out pixels must be non-empty (N, channels, S, S), got ",
              train.sizes(), " and ", heldout.sizes());
  const auto start = std::chrono::steady_clock::now();
  torch::manual_seed(options.seed());  // dropout draws
  const uint64_t mask_stream = derive_seed(options.seed(), 0x6D61736B);     // "mask"
  const uint64_t heldout_stream = derive_seed(options.seed(), 0x68656C64);  // "held"
  const uint64_t order_stream = derive_seed(options.seed(), 0x6F726465);    // "orde"

  auto optimizer = make_adamw(model, AdamWSettings().lr(options.peak_lr()).weight_decay(options.weight_decay()));
  const LinearWarmupDecay schedule(
      LinearWarmupDecayOptions(options.steps()).peak_lr(options.peak_lr()).warmup_ratio(options.warmup_ratio()));
  const auto parameters = model.parameters();
  const int64_t patches = model.options.num_patches();

  // The held-out masks are drawn once: every evaluation scores the same masked pixels.
  const auto heldout_masks = patch_masks(heldout.size(0), patches, options.mask_ratio(), heldout_stream, 0);
  MaskedImagePretrainResult result;
  result.mean_image_heldout_loss = mean_image_loss(train, heldout, heldout_masks, model.options.patch_size());
  ProgressBar bar(ProgressOptions(options.steps()).label(options.label()).unit("img"));
  std::vector<int64_t> order;
  int64_t epoch = -1, cursor = 0;
  double train_seconds = 0, loss_since_eval = 0;
  int64_t steps_since_eval = 0;
  model.train();
  for (int64_t step = 0; step < options.steps(); ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    // Epochs of a fresh seeded order; a batch never straddles two epochs' orders.
    if (epoch < 0 || cursor + options.batch_size() > int64_t(order.size())) {
      ++epoch;
      order = seeded_permutation(train.size(0), derive_seed(order_stream, uint64_t(epoch)));
      cursor = 0;
    }
    const int64_t count = std::min(options.batch_size(), int64_t(order.size()));
    const auto indices = torch::tensor(std::vector<int64_t>(order.begin() + cursor, order.begin() + cursor + count));
    cursor += count;
    const auto masks = patch_masks(count, patches, options.mask_ratio(), mask_stream, uint64_t(step * options.batch_size()));
    const double lr = schedule.lr(step);
    set_learning_rate(*optimizer, lr);
    optimizer->zero_grad();
    const auto loss = model.forward(train.index_select(0, indices), masks).loss;
    const double value = loss.item<double>();
    TORCH_CHECK(std::isfinite(value), "masked image modelling diverged: the loss is ", value, " at step ", step + 1,
                " of ", options.steps(), " (learning rate ", lr, "); lower peak_lr or lengthen the warm-up");
    loss.backward();
    if (options.max_grad_norm() > 0) torch::nn::utils::clip_grad_norm_(parameters, options.max_grad_norm());
    optimizer->step();
    train_seconds += seconds_since(step_start);
    loss_since_eval += value;
    ++steps_since_eval;
    if (options.show_progress()) bar.advance(1, count, {{"loss", value}, {"lr", lr}});
    const bool last = step + 1 == options.steps();
    if (last || (options.eval_every() > 0 && (step + 1) % options.eval_every() == 0)) {
      MaskedImageEvalPoint point;
      point.step = step + 1;
      point.train_loss = loss_since_eval / double(steps_since_eval);
      point.heldout_loss = heldout_loss(model, heldout, heldout_masks, options.batch_size());
      point.lr = lr;
      point.elapsed_seconds = seconds_since(start);
      result.log.push_back(point);
      loss_since_eval = 0;
      steps_since_eval = 0;
      if (options.show_progress()) {
        fmt::print(stderr, "{} step {}: train loss {:.4f}, held-out loss {:.4f} (mean image {:.4f})\n",
                   options.label(), point.step, point.train_loss, point.heldout_loss, result.mean_image_heldout_loss);
      }
    }
  }
  if (options.show_progress()) bar.finish();
  result.steps = options.steps();
  result.final_heldout_loss = result.log.empty() ? 0 : result.log.back().heldout_loss;
  result.wall_seconds = seconds_since(start);
  result.images_per_second = train_seconds > 0 ? double(options.steps() * options.batch_size()) / train_seconds : 0;
  return result;
}

}  // namespace capaboost
