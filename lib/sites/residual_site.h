#pragma once
// The extension point after a residual block's LayerNorm: where Pfeiffer et al. (2021) and
// adapter-transformers put their adapter ("after FFN and LayerNorm modules", CapaBoost §2).
//
// A BERT-family block computes out = LayerNorm(h + x), h its projection's output after dropout and x
// the residual stream. With a tuner T attached it computes, with the block's own LayerNorm both times,
//   s = h + x;   out = LayerNorm(s + T(LayerNorm(s)))
// which is adapter-transformers' Pfeiffer configuration (original_ln_before, residual_before_ln,
// original_ln_after): the adapter reads the block's normalised output, its result joins the residual
// sum, and the sum is normalised again. T is a linear site's kind of tuner (sites/site_tuner.h), called
// with x = y = LayerNorm(s), so an adapter lives here unchanged; it returns only its correction
// (AdapterOptions::residual(false)), since the block adds the sum itself.

#include <torch/torch.h>

#include <string>

#include "sites/site_tuner.h"

namespace capaboost {

class ResidualSiteImpl : public torch::nn::Module {
 public:
  /// `features`: the block's width C. `projection`: the child name of the linear site whose output the
  /// block adds ("dense"); a site selector names a residual site by that projection's full name
  /// (sites/site_registry.h), so `targets` mean the same blocks whatever the placement.
  ResidualSiteImpl(int64_t features, std::string projection);

  /// Attaches `tuner` as child module `tuner->kind()`; at most one tuner per residual site.
  void attach(SiteTunerPtr tuner);
  /// Removes the tuner.
  void detach();
  const SiteTunerPtr& tuner() const { return tuner_; }

  int64_t features() const { return features_; }
  const std::string& projection() const { return projection_; }

  /// Forward FLOPs per token the site adds around its tuner: the correction's add to the sum (C) and the
  /// second LayerNorm (7C: mean and centring 2C, variance 2C, normalising C, scale and shift 2C);
  /// 0 without a tuner.
  double tuning_flops_per_token() const;

 protected:
  /// sum: (B, T, C) = h + x. layer_norm(sum) without a tuner, else the formula above.
  torch::Tensor normalise(const torch::Tensor& sum, torch::nn::LayerNormImpl& layer_norm);

 private:
  int64_t features_;
  std::string projection_;
  SiteTunerPtr tuner_;
};

}  // namespace capaboost
