#pragma once
// Masked-image-modelling pre-training (SimMIM, as transformers' ViTForMaskedImageModeling computes it):
// a random fraction of each image's patches is replaced by the mask token and the model learns to
// reconstruct their pixels (L1). No labels are read. The suite pre-trains its offline vision backbone
// with it (pretrain/vision_backbone.h).
//
//   MaskedImagePretrainResult r = pretrain_masked_images(*model, train_pixels, heldout_pixels,
//                                                        MaskedImagePretrainOptions().steps(3000));

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/vit_for_masked_image_modeling.h"

namespace capaboost {

struct MaskedImagePretrainOptions {
  TORCH_ARG(int64_t, steps) = 1000;
  TORCH_ARG(int64_t, batch_size) = 128;
  TORCH_ARG(double, peak_lr) = 1e-3;
  /// Linear warm-up over this fraction of the steps, then linear decay to 0.
  TORCH_ARG(double, warmup_ratio) = 0.05;
  /// SimMIM's AdamW settings: weight decay 0.05, β2 = 0.999.
  TORCH_ARG(double, weight_decay) = 0.05;
  TORCH_ARG(double, max_grad_norm) = 5.0;
  /// Fraction of each image's patches masked (exactly round(ratio · patches) of them).
  TORCH_ARG(double, mask_ratio) = 0.5;
  /// Seeds the image order, the masks and the initialisation-independent draws.
  TORCH_ARG(uint64_t, seed) = 2024;
  /// Held-out evaluation every this many steps (and after the last).
  TORCH_ARG(int64_t, eval_every) = 250;
  TORCH_ARG(bool, show_progress) = true;
  TORCH_ARG(std::string, label) = "mim";

 public:
  /// Every field that changes the result, for cache keys and records.
  nlohmann::json to_json() const;
};

/// One held-out evaluation: the same masks every time (seeded apart from training).
struct MaskedImageEvalPoint {
  int64_t step = 0;
  double train_loss = 0;    ///< mean training loss since the previous point
  double heldout_loss = 0;  ///< masked-pixel L1 on the held-out images
  double lr = 0;
  double elapsed_seconds = 0;
};

struct MaskedImagePretrainResult {
  std::vector<MaskedImageEvalPoint> log;
  /// The held-out masked-pixel L1 of predicting every masked pixel by the training images' mean image:
  /// what a model that ignores the visible patches can reach.
  double mean_image_heldout_loss = 0;
  double final_heldout_loss = 0;
  int64_t steps = 0;
  double wall_seconds = 0;
  double images_per_second = 0;

  nlohmann::json to_json() const;
};

/// The patch mask of image `index` under `seed`: (patches) bool with exactly round(ratio · patches) set.
torch::Tensor random_patch_mask(int64_t patches, double ratio, uint64_t seed, uint64_t index);

/// Pre-trains `model` on `train` (N, channels, S, S) normalised pixels, evaluating on `heldout` (M, …).
/// Throws on a non-finite loss, naming the step and the learning rate.
MaskedImagePretrainResult pretrain_masked_images(VitForMaskedImageModelingImpl& model, const torch::Tensor& train,
                                                 const torch::Tensor& heldout, const MaskedImagePretrainOptions& options);

}  // namespace capaboost
