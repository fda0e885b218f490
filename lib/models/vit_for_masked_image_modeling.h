#pragma once
// transformers 4.30.2's ViTForMaskedImageModeling (SimMIM, Xie et al. 2022): a ViT with a mask token
// replacing masked patches, and a decoder — a 1×1 convolution to encoder_stride² · channels outputs per
// patch token, then a pixel shuffle — that reconstructs the image; the loss is the L1 error on the
// masked patches' pixels. The suite pre-trains its offline vision backbone with it
// (pretrain/masked_image_pretrainer.h); parameter names are transformers' ("vit.embeddings.mask_token",
// "decoder.0.weight"), so its checkpoints load as ViTForImageClassification's encoder.
//
//   VitForMaskedImageModeling model(VitOptions().image_size(28).patch_size(4).encoder_stride(4).num_channels(1));
//   auto out = model->forward(pixel_values, bool_masked_pos);   // out.loss: scalar, out.reconstruction: (B, 1, 28, 28)

#include <torch/torch.h>

#include "models/vit.h"

namespace capaboost {

struct MaskedImageModelingOutput {
  torch::Tensor loss;            ///< scalar; undefined without bool_masked_pos
  torch::Tensor reconstruction;  ///< (B, channels, H, W)
};

class VitForMaskedImageModelingImpl : public torch::nn::Module {
 public:
  /// encoder_stride must equal patch_size, so the reconstruction has the image's size (as transformers
  /// requires for its loss).
  explicit VitForMaskedImageModelingImpl(const VitOptions& options);

  /// pixel_values: (B, channels, S, S) with S = options.image_size; bool_masked_pos: (B, patches) bool.
  MaskedImageModelingOutput forward(const torch::Tensor& pixel_values, const torch::Tensor& bool_masked_pos);

  VitOptions options;
  VitModel vit{nullptr};
  torch::nn::Sequential decoder{nullptr};  // "0": Conv2d(C, stride² · channels, 1), "1": PixelShuffle(stride)
};
TORCH_MODULE(VitForMaskedImageModeling);

/// transformers' masked-image loss: mean absolute error over the pixels of masked patches (the patch
/// mask upsampled to pixels), divided by the channel count. pixel_values, reconstruction:
/// (B, channels, S, S); bool_masked_pos: (B, (S/patch)²).
torch::Tensor masked_image_loss(const torch::Tensor& pixel_values, const torch::Tensor& reconstruction,
                                const torch::Tensor& bool_masked_pos, int64_t patch_size);

}  // namespace capaboost
