#pragma once
// Several runs' tuners on one linear site of a shared frozen encoder (train/run_pack.h): the batch
// holds one equal slice per run along its first dimension, the site's frozen product runs once over
// all of them, and each run's own tuner adapts its own slice.

#include <torch/torch.h>

#include <vector>

#include "sites/site_tuner.h"

namespace capaboost {

class PackedTunerImpl : public SiteTunerImpl {
 public:
  /// `tuners[i]` adapts slice i; they stay the runs' own modules (registered here too, as "0", "1", …).
  explicit PackedTunerImpl(std::vector<SiteTunerPtr> tuners);

  std::string kind() const override { return "packed"; }
  /// x: (k·B, …, in), y: (k·B, …, out) → (k·B, …, out): slice i is tuners[i]->adapt(x_i, y_i). Each
  /// slice's dropout draws are those of slice 0 (models/dropout_packing.h), as every run alone draws.
  torch::Tensor adapt(const torch::Tensor& x, const torch::Tensor& y) override;
  /// The packed tuners' counts and FLOPs summed (what the site carries for all runs together).
  TunerParameterCount parameter_count() const override;
  TunerFlops flops_per_token() const override;

  const std::vector<SiteTunerPtr>& tuners() const { return tuners_; }

 private:
  std::vector<SiteTunerPtr> tuners_;
};
TORCH_MODULE(PackedTuner);

}  // namespace capaboost
