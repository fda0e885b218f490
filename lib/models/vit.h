#pragma once
// The Vision Transformer as transformers 4.30.2's ViTModel and ViTForImageClassification: the same
// computation (non-overlapping patch projection, a CLS token, learned positions — bicubically
// interpolated for other image sizes — pre-LayerNorm blocks, a final LayerNorm, the classifier on the
// CLS token) and the same parameter names, so Hugging Face checkpoints load 1:1
// (models/vit_pretrained.h). Every linear layer is a TunableLinear site and every self-attention an
// attention site, so the PEFT methods attach to ViT as to RoBERTa (`targets: [query, value]`).
//
//   auto model = VitForImageClassification(VitOptions().num_labels(10));
//   auto out = model->forward(pixel_values);   // pixel_values: (B, 3, 224, 224) → out.logits: (B, 10)

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "models/parallel_dropout.h"
#include "models/task_model.h"
#include "models/transformer_blocks.h"
#include "models/vit_config.h"
#include "sites/attention_site.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// Which intermediate results a forward pass returns (transformers' output_hidden_states /
/// output_attentions) and whether the position table is interpolated to the images' size.
struct VitForwardOptions {
  TORCH_ARG(bool, output_hidden_states) = false;
  TORCH_ARG(bool, output_attentions) = false;
  /// Images of another size than options.image_size need it (transformers' interpolate_pos_encoding).
  TORCH_ARG(bool, interpolate_pos_encoding) = false;
};

/// transformers' ViTEmbeddings.interpolate_pos_encoding: the patch part of `position_embeddings`
/// (1, N + 1, C), laid out as a √N × √N grid, resized bicubically (align_corners false) by
/// (h + 0.1)/√N and (w + 0.1)/√N to an h × w grid of patches; the CLS row unchanged. Returns the table
/// itself when h·w = N and h = w. → (1, h·w + 1, C).
torch::Tensor interpolate_vit_positions(const torch::Tensor& position_embeddings, int64_t patches_high,
                                        int64_t patches_wide);

/// The patch projection ("projection": a Conv2d with kernel = stride = patch_size), flattened to tokens.
class VitPatchEmbeddingsImpl : public torch::nn::Module {
 public:
  explicit VitPatchEmbeddingsImpl(const VitOptions& options);
  /// pixel_values: (B, channels, H, W) → (B, (H/p)·(W/p), C). Without `interpolate_pos_encoding` the
  /// images must have the config's size, as transformers demands.
  torch::Tensor forward(const torch::Tensor& pixel_values, bool interpolate_pos_encoding);

  VitOptions options;
  torch::nn::Conv2d projection{nullptr};
};
TORCH_MODULE(VitPatchEmbeddings);

/// CLS token, patch embeddings and positions, then dropout. With a mask token (ViTForMaskedImageModeling's
/// `use_mask_token`), masked patches are replaced by it before the positions are added.
class VitEmbeddingsImpl : public torch::nn::Module {
 public:
  explicit VitEmbeddingsImpl(const VitOptions& options, bool use_mask_token = false);
  /// pixel_values: (B, channels, H, W) → (B, 1 + patches, C). bool_masked_pos: (B, patches) bool, or
  /// undefined for none; it needs the mask token.
  torch::Tensor forward(const torch::Tensor& pixel_values, bool interpolate_pos_encoding,
                        const torch::Tensor& bool_masked_pos = {});

  VitOptions options;
  torch::Tensor cls_token;            // (1, 1, C)
  torch::Tensor mask_token;           // (1, 1, C), undefined without use_mask_token
  torch::Tensor position_embeddings;  // (1, N + 1, C)
  VitPatchEmbeddings patch_embeddings{nullptr};
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(VitEmbeddings);

/// Multi-head scaled dot-product attention over all tokens (no padding in images); an attention site.
class VitSelfAttentionImpl : public AttentionSiteImpl {
 public:
  explicit VitSelfAttentionImpl(const VitOptions& options);
  /// hidden: (B, T, C) → context (B, T, C) and attention probabilities (B, H, T, T) after dropout.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden);

  TunableLinear query{nullptr};
  TunableLinear key{nullptr};
  TunableLinear value{nullptr};
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(VitSelfAttention);

/// The attention's projection ("output"): dense → dropout; the residual is added by the layer.
class VitSelfOutputImpl : public torch::nn::Module {
 public:
  explicit VitSelfOutputImpl(const VitOptions& options);
  /// context: (B, T, C) → (B, T, C).
  torch::Tensor forward(const torch::Tensor& context);

  TunableLinear dense{nullptr};
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(VitSelfOutput);

/// Self-attention ("attention") and its projection ("output").
class VitAttentionImpl : public torch::nn::Module {
 public:
  explicit VitAttentionImpl(const VitOptions& options);
  /// hidden: (B, T, C) → (B, T, C) and probabilities (B, H, T, T).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden);

  VitSelfAttention attention{nullptr};
  VitSelfOutput output{nullptr};
};
TORCH_MODULE(VitAttention);

/// The feed-forward block's second half ("output"): dense → dropout → + residual (no LayerNorm: ViT's
/// blocks normalise their inputs).
class VitOutputImpl : public torch::nn::Module {
 public:
  explicit VitOutputImpl(const VitOptions& options);
  /// x: (B, T, intermediate_size), residual: (B, T, C) → (B, T, C).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual);

  TunableLinear dense{nullptr};
  ParallelDropout dropout{nullptr};
};
TORCH_MODULE(VitOutput);

/// One pre-LayerNorm block: h = x + attention(LN_before(x)); out = h + output(intermediate(LN_after(h))).
class VitLayerImpl : public torch::nn::Module {
 public:
  explicit VitLayerImpl(const VitOptions& options);
  /// hidden: (B, T, C) → (B, T, C) and attention probabilities (B, H, T, T).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden);

  VitAttention attention{nullptr};
  Intermediate intermediate{nullptr};
  VitOutput output{nullptr};
  torch::nn::LayerNorm layernorm_before{nullptr};
  torch::nn::LayerNorm layernorm_after{nullptr};
};
TORCH_MODULE(VitLayer);

/// The stack of layers ("layer.<i>").
class VitEncoderImpl : public torch::nn::Module {
 public:
  explicit VitEncoderImpl(const VitOptions& options);
  torch::nn::ModuleList layer{nullptr};
};
TORCH_MODULE(VitEncoder);

/// dense → tanh on the CLS token.
class VitPoolerImpl : public torch::nn::Module {
 public:
  explicit VitPoolerImpl(const VitOptions& options);
  /// hidden: (B, T, C) → (B, C).
  torch::Tensor forward(const torch::Tensor& hidden);

  TunableLinear dense{nullptr};
};
TORCH_MODULE(VitPooler);

/// ViTModel's outputs.
struct VitModelOutput {
  torch::Tensor last_hidden_state;           ///< (B, T, C), after the final LayerNorm
  torch::Tensor pooler_output;               ///< (B, C), undefined without a pooler
  std::vector<torch::Tensor> hidden_states;  ///< when asked: L+1 × (B, T, C), [0] the embeddings, all before the final LayerNorm
  std::vector<torch::Tensor> attentions;     ///< when asked: L × (B, H, T, T)
};

/// The bare encoder: "embeddings", "encoder.layer.<i>", the final "layernorm", optional "pooler"
/// (dense → tanh on the CLS token).
class VitModelImpl : public torch::nn::Module {
 public:
  /// transformers adds the pooler by default; ViTForImageClassification builds it without one, and
  /// ViTForMaskedImageModeling with a mask token.
  explicit VitModelImpl(const VitOptions& options, bool add_pooling_layer = true, bool use_mask_token = false);
  /// pixel_values: (B, channels, H, W) float; bool_masked_pos: (B, patches) bool or undefined.
  VitModelOutput forward(const torch::Tensor& pixel_values, const VitForwardOptions& outputs = {},
                         const torch::Tensor& bool_masked_pos = {});

  VitOptions options;
  VitEmbeddings embeddings{nullptr};
  VitEncoder encoder{nullptr};
  torch::nn::LayerNorm layernorm{nullptr};
  VitPooler pooler{nullptr};  // null without a pooling layer
};
TORCH_MODULE(VitModel);

/// ViTForImageClassification's outputs.
struct ImageClassifierOutput {
  torch::Tensor logits;                      ///< (B, num_labels)
  std::vector<torch::Tensor> hidden_states;  ///< when asked, as VitModelOutput
  std::vector<torch::Tensor> attentions;     ///< when asked, as VitModelOutput
};

/// The encoder without pooler ("vit") and a linear classifier on the CLS token ("classifier"). As a task
/// model it reads "pixel_values" (B, channels, H, W) from a batch, interpolating positions when the
/// images are not options.image_size square.
class VitForImageClassificationImpl : public TaskModelImpl {
 public:
  explicit VitForImageClassificationImpl(const VitOptions& options);

  ImageClassifierOutput forward(const torch::Tensor& pixel_values, const VitForwardOptions& outputs = {});
  /// transformers' loss for these logits (models/classification_loss.h, as ViTForImageClassification).
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"classifier."}; }

  VitOptions options;
  VitModel vit{nullptr};
  TunableLinear classifier{nullptr};
};
TORCH_MODULE(VitForImageClassification);

}  // namespace capaboost
