#include "models/vit.h"

#include <cmath>

#include "models/batched_matmul.h"
#include "models/masked_softmax_dropout.h"
#include "models/classification_loss.h"
#include "runtime/autocast_input.h"

namespace capaboost {
namespace {

torch::nn::LayerNorm vit_layer_norm(const VitOptions& options) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps()));
}

}  // namespace

torch::Tensor interpolate_vit_positions(const torch::Tensor& position_embeddings, int64_t patches_high,
                                        int64_t patches_wide) {
  const int64_t table = position_embeddings.size(1) - 1;  // N patch positions after the CLS row
  if (patches_high * patches_wide == table && patches_high == patches_wide) return position_embeddings;
  const int64_t dim = position_embeddings.size(2);
  const double root = std::sqrt(static_cast<double>(table));
  const auto side = static_cast<int64_t>(root);
  TORCH_CHECK(side * side == table, "ViT: the position table's ", table,
              " patch positions are not a square grid, so they cannot be interpolated");
  const auto cls = position_embeddings.narrow(1, 0, 1);                                 // (1, 1, C)
  const auto grid = position_embeddings.narrow(1, 1, table).reshape({1, side, side, dim})  // (1, s, s, C)
                        .permute({0, 3, 1, 2});                                         // (1, C, s, s)
  // transformers adds 0.1 to the target grid "to avoid floating point error in the interpolation" and
  // passes scale factors, not sizes; the kernel then maps coordinates with these exact scales.
  const double scale_high = (static_cast<double>(patches_high) + 0.1) / root;
  const double scale_wide = (static_cast<double>(patches_wide) + 0.1) / root;
  const auto resized = torch::nn::functional::interpolate(
      grid, torch::nn::functional::InterpolateFuncOptions()
                .scale_factor(std::vector<double>{scale_high, scale_wide})
                .mode(torch::kBicubic)
                .align_corners(false)
                .recompute_scale_factor(false));  // (1, C, h, w)
  TORCH_CHECK(resized.size(2) == patches_high && resized.size(3) == patches_wide,
              "ViT: interpolating positions to ", patches_high, "×", patches_wide, " patches gave ", resized.size(2),
              "×", resized.size(3));
  return torch::cat({cls, resized.permute({0, 2, 3, 1}).reshape({1, patches_high * patches_wide, dim})}, 1);
}

VitPatchEmbeddingsImpl::VitPatchEmbeddingsImpl(const VitOptions& options_) : options(options_) {
  projection = register_module(
      "projection", torch::nn::Conv2d(torch::nn::Conv2dOptions(options.num_channels(), options.hidden_size(),
                                                               options.patch_size())
                                          .stride(options.patch_size())));
}

torch::Tensor VitPatchEmbeddingsImpl::forward(const torch::Tensor& pixel_values, bool interpolate_pos_encoding) {
  TORCH_CHECK(pixel_values.dim() == 4, "ViT: pixel_values must be (batch, channels, height, width), got ",
              pixel_values.sizes());
  TORCH_CHECK(pixel_values.size(1) == options.num_channels(), "ViT: the images have ", pixel_values.size(1),
              " channels but the model was built for num_channels ", options.num_channels());
  const int64_t height = pixel_values.size(2), width = pixel_values.size(3);
  TORCH_CHECK(interpolate_pos_encoding || (height == options.image_size() && width == options.image_size()),
              "ViT: input image size (", height, "*", width, ") doesn't match model (", options.image_size(), "*",
              options.image_size(), "); resize the images or interpolate the position embeddings");
  return projection->forward(pixel_values).flatten(2).transpose(1, 2);  // (B, C, h, w) → (B, h·w, C)
}

VitEmbeddingsImpl::VitEmbeddingsImpl(const VitOptions& options_, bool use_mask_token) : options(options_) {
  cls_token = register_parameter("cls_token", torch::zeros({1, 1, options.hidden_size()}));
  if (use_mask_token) mask_token = register_parameter("mask_token", torch::zeros({1, 1, options.hidden_size()}));
  patch_embeddings = register_module("patch_embeddings", VitPatchEmbeddings(options));
  position_embeddings =
      register_parameter("position_embeddings", torch::zeros({1, options.num_patches() + 1, options.hidden_size()}));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor VitEmbeddingsImpl::forward(const torch::Tensor& pixel_values, bool interpolate_pos_encoding,
                                         const torch::Tensor& bool_masked_pos) {
  auto patches = patch_embeddings->forward(pixel_values, interpolate_pos_encoding);  // (B, P, C)
  if (bool_masked_pos.defined()) {
    TORCH_CHECK(mask_token.defined(), "ViT: bool_masked_pos needs a model built with a mask token");
    TORCH_CHECK(bool_masked_pos.dim() == 2 && bool_masked_pos.size(0) == patches.size(0) &&
                    bool_masked_pos.size(1) == patches.size(1),
                "ViT: bool_masked_pos must be (batch, patches) = (", patches.size(0), ", ", patches.size(1), "), got ",
                bool_masked_pos.sizes());
    // As transformers: a blend with the 0/1 mask, so the mask token's gradient is the masked positions'.
    const auto mask = bool_masked_pos.unsqueeze(-1).to(patches.scalar_type());  // (B, P, 1)
    patches = patches * (1.0 - mask) + mask_token.expand({patches.size(0), patches.size(1), -1}) * mask;
  }
  const auto tokens = torch::cat({cls_token.expand({patches.size(0), -1, -1}), patches}, 1);  // (B, 1 + P, C)
  const auto positions = interpolate_pos_encoding
                             ? interpolate_vit_positions(position_embeddings, pixel_values.size(2) / options.patch_size(),
                                                         pixel_values.size(3) / options.patch_size())
                             : position_embeddings;  // (1, 1 + P, C)
  return dropout->forward(tokens + positions);
}

VitSelfAttentionImpl::VitSelfAttentionImpl(const VitOptions& options)
    : AttentionSiteImpl(options.num_attention_heads(), options.hidden_size() / options.num_attention_heads()) {
  const int64_t hidden = options.hidden_size();
  const auto projection = TunableLinearOptions(hidden, hidden).bias(options.qkv_bias());
  query = register_module("query", TunableLinear(projection));
  key = register_module("key", TunableLinear(projection));
  value = register_module("value", TunableLinear(projection));
  dropout = register_module("dropout", ParallelDropout(options.attention_probs_dropout_prob()));
}

std::pair<torch::Tensor, torch::Tensor> VitSelfAttentionImpl::forward(const torch::Tensor& hidden) {
  const int64_t batch = hidden.size(0), tokens = hidden.size(1);
  const int64_t num_heads = this->num_heads(), head_size = this->head_size();
  // (B, T, C) → (B, H, T, d) as views: batched_matmul reads the heads in place.
  const auto heads = [&](const torch::Tensor& x) {
    return x.view({batch, tokens, num_heads, head_size}).permute({0, 2, 1, 3});
  };
  // Query, key and value read the same input: in a bf16 run it is cast once for all three.
  const auto input = runtime::autocast_input(hidden);  // (B, T, C)
  const auto q = heads(query->forward(input));         // (B, H, T, d)
  // No padding in images: the mask is undefined unless a key-value tuner adds positions with one.
  const KeyValues kv = tune_key_values({heads(key->forward(input)), heads(value->forward(input)), torch::Tensor()});
  auto scores = batched_matmul(q, kv.keys.transpose(-1, -2), 1.0 / std::sqrt(static_cast<double>(head_size)));
  auto probs = attention_probabilities(scores, kv.mask, *dropout);  // (B, H, T, T')
  auto context = batched_matmul(probs, kv.values);  // (B, H, T, d)
  return {context.permute({0, 2, 1, 3}).reshape({batch, tokens, num_heads * head_size}), probs};
}

VitSelfOutputImpl::VitSelfOutputImpl(const VitOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor VitSelfOutputImpl::forward(const torch::Tensor& context) { return dropout->forward(dense->forward(context)); }

VitAttentionImpl::VitAttentionImpl(const VitOptions& options) {
  attention = register_module("attention", VitSelfAttention(options));
  output = register_module("output", VitSelfOutput(options));
}

std::pair<torch::Tensor, torch::Tensor> VitAttentionImpl::forward(const torch::Tensor& hidden) {
  auto [context, probs] = attention->forward(hidden);
  return {output->forward(context), probs};
}

VitOutputImpl::VitOutputImpl(const VitOptions& options) {
  dense = register_module("dense", TunableLinear(options.intermediate_size(), options.hidden_size()));
  dropout = register_module("dropout", ParallelDropout(options.hidden_dropout_prob()));
}

torch::Tensor VitOutputImpl::forward(const torch::Tensor& x, const torch::Tensor& residual) {
  return dropout->forward(dense->forward(x)) + residual;
}

VitLayerImpl::VitLayerImpl(const VitOptions& options) {
  attention = register_module("attention", VitAttention(options));
  intermediate = register_module(
      "intermediate", Intermediate(options.hidden_size(), options.intermediate_size(), options.hidden_act()));
  output = register_module("output", VitOutput(options));
  layernorm_before = register_module("layernorm_before", vit_layer_norm(options));
  layernorm_after = register_module("layernorm_after", vit_layer_norm(options));
}

std::pair<torch::Tensor, torch::Tensor> VitLayerImpl::forward(const torch::Tensor& hidden) {
  auto [attended, probs] = attention->forward(layernorm_before->forward(hidden));
  const auto h = attended + hidden;  // (B, T, C)
  return {output->forward(intermediate->forward(layernorm_after->forward(h)), h), probs};
}

VitEncoderImpl::VitEncoderImpl(const VitOptions& options) {
  layer = register_module("layer", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_hidden_layers(); ++i) layer->push_back(VitLayer(options));
}

VitPoolerImpl::VitPoolerImpl(const VitOptions& options) {
  dense = register_module("dense", TunableLinear(options.hidden_size(), options.hidden_size()));
}

torch::Tensor VitPoolerImpl::forward(const torch::Tensor& hidden) { return torch::tanh(dense->forward(hidden.select(1, 0))); }

VitModelImpl::VitModelImpl(const VitOptions& options_, bool add_pooling_layer, bool use_mask_token) : options(options_) {
  options.validate();
  embeddings = register_module("embeddings", VitEmbeddings(options, use_mask_token));
  encoder = register_module("encoder", VitEncoder(options));
  layernorm = register_module("layernorm", vit_layer_norm(options));
  if (add_pooling_layer) pooler = register_module("pooler", VitPooler(options));
  // transformers' ViTPreTrainedModel._init_weights: linear and convolution weights, the CLS token and the
  // position table from a normal of std initializer_range (truncated at ±2, i.e. 100σ: never reached),
  // biases 0, LayerNorm weight 1.
  init_transformer_weights(*this, options.initializer_range());
  torch::NoGradGuard no_grad;
  embeddings->patch_embeddings->projection->weight.normal_(0.0, options.initializer_range());
  embeddings->patch_embeddings->projection->bias.zero_();
  embeddings->cls_token.normal_(0.0, options.initializer_range());
  embeddings->position_embeddings.normal_(0.0, options.initializer_range());
}

VitModelOutput VitModelImpl::forward(const torch::Tensor& pixel_values, const VitForwardOptions& outputs,
                                     const torch::Tensor& bool_masked_pos) {
  VitModelOutput out;
  auto h = embeddings->forward(pixel_values, outputs.interpolate_pos_encoding(), bool_masked_pos);  // (B, T, C)
  if (outputs.output_hidden_states()) out.hidden_states.push_back(h);
  for (const auto& module : *encoder->layer) {
    auto [next, probs] = module->as<VitLayer>()->forward(h);
    h = next;
    if (outputs.output_hidden_states()) out.hidden_states.push_back(h);
    if (outputs.output_attentions()) out.attentions.push_back(probs);
  }
  out.last_hidden_state = layernorm->forward(h);
  if (pooler) out.pooler_output = pooler->forward(out.last_hidden_state);
  return out;
}

VitForImageClassificationImpl::VitForImageClassificationImpl(const VitOptions& options_) : options(options_) {
  vit = register_module("vit", VitModel(options, /*add_pooling_layer=*/false));
  classifier = register_module("classifier", TunableLinear(options.hidden_size(), options.num_labels()));
  init_linear_weights(*classifier, options.initializer_range());
}

ImageClassifierOutput VitForImageClassificationImpl::forward(const torch::Tensor& pixel_values,
                                                             const VitForwardOptions& outputs) {
  auto base = vit->forward(pixel_values, outputs);
  ImageClassifierOutput out;
  out.logits = classifier->forward(base.last_hidden_state.select(1, 0));  // (B, num_labels) from the CLS token
  out.hidden_states = std::move(base.hidden_states);
  out.attentions = std::move(base.attentions);
  return out;
}

torch::Tensor VitForImageClassificationImpl::loss(const torch::Tensor& logits, const torch::Tensor& labels) const {
  return sequence_classification_loss(logits, labels, options.problem_type());
}

torch::Tensor VitForImageClassificationImpl::forward_batch(const Batch& batch) {
  const torch::Tensor& pixels = batch.input("pixel_values");  // (B, channels, H, W)
  TORCH_CHECK(pixels.dim() == 4, "ViT: pixel_values must be (batch, channels, height, width), got ", pixels.sizes());
  const bool other_size = pixels.size(2) != options.image_size() || pixels.size(3) != options.image_size();
  return forward(pixels, VitForwardOptions().interpolate_pos_encoding(other_size)).logits;
}

torch::Tensor VitForImageClassificationImpl::batch_loss(const torch::Tensor& outputs, const Batch& batch) const {
  TORCH_CHECK(batch.labels.defined(), "ViTForImageClassification: the batch has no labels to train on");
  return loss(outputs, batch.labels);
}

}  // namespace capaboost
