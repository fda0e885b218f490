#pragma once
// Prefix tuning (Li & Liang, 2021) on attention sites: every layer attends over l learned key and
// value vectors prepended to its own,
//   softmax(q [P_k; K]ᵀ/√d + [0; mask]) [P_v; V],   P_k, P_v: (l, C), split into heads like K and V.
// Trained through Li & Liang's reparameterisation: one MLP shared by all layers maps a small table
// E (l, C) to every layer's prefixes, P = W₂ tanh(W₁ Eᵀ + b₁) + b₂ sliced per layer, which makes
// optimisation stable; after training the MLP is dropped and the plain prefixes kept (merge_prefixes),
// so the budget counts 2·l·C per layer (the paper's 0.95% at l = 64 on RoBERTa-base) while training
// updates the MLP's larger count (`trainable` in a run record).

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>

#include "sites/key_value_tuner.h"

namespace capaboost {

struct PrefixOptions {
  /* implicit */ PrefixOptions(int64_t length = 64) : length_(length) {}
  /// l, the number of prefix positions per layer.
  TORCH_ARG(int64_t, length);
  /// Hidden width of the reparameterisation MLP; 0 trains the prefixes directly. 512 is
  /// adapter-transformers' prefix bottleneck, the code ProPETL ran Table 2's prefix rows with.
  TORCH_ARG(int64_t, mlp_hidden) = 512;
};

/// The reparameterisation shared by the prefixes of `layers` attention sites of width C.
class PrefixEncoderImpl : public torch::nn::Module {
 public:
  PrefixEncoderImpl(int64_t length, int64_t width, int64_t mlp_hidden, int64_t layers);

  /// Layer `layer`'s prefix, (l, 2C): its keys in the first C columns, its values in the last C.
  torch::Tensor layer_prefix(int64_t layer);

  int64_t layers() const { return layers_; }

  torch::Tensor embedding;                // (l, C), ~ N(0, 1) like an nn.Embedding
  torch::nn::Linear down{nullptr};        // C → mlp_hidden
  torch::nn::Linear up{nullptr};          // mlp_hidden → layers · 2 · C

 private:
  int64_t width_;
  int64_t layers_;
};
TORCH_MODULE(PrefixEncoder);

/// One attention site's prefix: either rows of a shared PrefixEncoder or plain trained tensors.
class PrefixTuningImpl : public KeyValueTunerImpl {
 public:
  /// Reparameterised: this site is layer `layer` of `encoder`. Exactly one site per encoder passes
  /// `owns_encoder`, which registers the encoder as its child so that it is trained, counted and
  /// saved once.
  PrefixTuningImpl(PrefixEncoder encoder, int64_t layer, bool owns_encoder, int64_t num_heads, int64_t head_size);
  /// Plain: trains (l, C) keys and values directly, ~ N(0, 1) as PEFT's prefix embedding.
  PrefixTuningImpl(int64_t length, int64_t num_heads, int64_t head_size);

  std::string kind() const override { return "prefix"; }
  /// keys/values: (B, H, T, d) → (B, H, l + T, d); the mask gains l attended positions in front.
  KeyValues extend(KeyValues state) override;
  /// 2·l·C: what the merged prefix stores (the MLP is a training device, not part of the budget).
  TunerParameterCount parameter_count() const override;

  /// The current prefix keys and values, (l, C) each.
  std::pair<torch::Tensor, torch::Tensor> prefix();
  /// Replaces the reparameterisation by plain tensors holding `keys` and `values` (l, C).
  void set_plain(const torch::Tensor& keys, const torch::Tensor& values);
  bool reparameterized() const { return !encoder_.is_empty(); }

  torch::Tensor keys;    // (l, C) when plain
  torch::Tensor values;  // (l, C) when plain

 private:
  PrefixEncoder encoder_{nullptr};
  int64_t layer_ = 0;
  bool owns_encoder_ = false;
  int64_t length_;
  int64_t num_heads_;
  int64_t head_size_;
};
TORCH_MODULE(PrefixTuning);

/// Prepends prefix keys and values (l, C), split into heads like the site's own, and opens the mask
/// for them: keys/values (B, H, T, d) → (B, H, l + T, d); an undefined mask stays undefined.
KeyValues prepend_prefix(KeyValues state, const torch::Tensor& keys, const torch::Tensor& values, int64_t num_heads,
                         int64_t head_size);

/// Merges every reparameterised prefix of `model` into plain prefixes with the same values and drops
/// the MLP: outputs are unchanged, and what remains is the 2·l·C per layer the budget counts.
/// Returns the number of prefixes merged.
int64_t merge_prefixes(torch::nn::Module& model);

}  // namespace capaboost
