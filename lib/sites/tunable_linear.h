#pragma once
// A linear layer that a PEFT tuner can attach to: the backbone's unit of adaptation ("site").

#include <torch/torch.h>

#include <string>

#include "sites/site_tuner.h"

namespace capaboost {

struct TunableLinearOptions {
  TunableLinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

/// y = x Wᵀ + b, with parameters named exactly `weight` (out, in) and `bias` (out) like
/// torch::nn::Linear and Hugging Face checkpoints, plus an optional tuner child that adapts the output.
/// The site's name (its dotted path in the model) is set when a tuner is attached; CapaBoost masks
/// are a function of it.
class TunableLinearImpl : public torch::nn::Module {
 public:
  explicit TunableLinearImpl(const TunableLinearOptions& options);
  TunableLinearImpl(int64_t in_features, int64_t out_features)
      : TunableLinearImpl(TunableLinearOptions(in_features, out_features)) {}

  /// (Re)creates weight and bias with torch::nn::Linear's initialisation.
  void reset();
  /// x: (…, in) → (…, out). Under autocast (a bf16 run on the CPU or a GPU, runtime/precision.h) a
  /// frozen weight's lower-precision copy is kept between calls instead of cast anew every forward
  /// (autocast caches only weights that train); it is remade when the weight changes in place or is
  /// replaced.
  torch::Tensor forward(const torch::Tensor& x);

  /// Attaches `tuner` as child module `tuner->kind()`; at most one tuner per site.
  void attach(SiteTunerPtr tuner);
  /// Detaches the tuner (unmerging it first).
  void detach();
  const SiteTunerPtr& tuner() const { return tuner_; }

  /// Adds the tuner's ΔW to `weight` so that forward costs one GEMM; the tuner is skipped until unmerge.
  /// Only for tuners that report `delta_weight()`.
  void merge();
  /// Subtracts the merged ΔW again (recomputed from the current factors).
  void unmerge();
  bool merged() const { return merged_; }

  /// Forward FLOPs per token of the frozen layer alone.
  double base_flops_per_token() const;

  TunableLinearOptions options;
  torch::Tensor weight;  // (out, in)
  torch::Tensor bias;    // (out) or undefined

 private:
  /// The weight as the product should read it: `weight`, or its cached autocast-precision copy.
  const torch::Tensor& product_weight();

  SiteTunerPtr tuner_;
  bool merged_ = false;
  torch::Tensor lowp_weight_;  // (out, in) in autocast's dtype, or undefined
  const void* lowp_source_ = nullptr;
  int64_t lowp_version_ = -1;
};
TORCH_MODULE(TunableLinear);

}  // namespace capaboost
