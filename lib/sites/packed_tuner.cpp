#include "sites/packed_tuner.h"

#include "models/dropout_packing.h"

#include <string>

namespace capaboost {

PackedTunerImpl::PackedTunerImpl(std::vector<SiteTunerPtr> tuners) : tuners_(std::move(tuners)) {
  TORCH_CHECK(!tuners_.empty(), "PackedTuner: no tuners to pack");
  for (size_t i = 0; i < tuners_.size(); ++i) {
    TORCH_CHECK(tuners_[i], "PackedTuner: tuner ", i, " is null");
    register_module(std::to_string(i), tuners_[i]);
  }
}

torch::Tensor PackedTunerImpl::adapt(const torch::Tensor& x, const torch::Tensor& y) {
  const auto k = static_cast<int64_t>(tuners_.size());
  TORCH_CHECK(x.size(0) % k == 0 && y.size(0) == x.size(0), "PackedTuner: ", k, " runs need batches that split into ",
              k, " equal slices; got x ", x.sizes(), ", y ", y.sizes());
  const auto xs = x.chunk(k);  // k × (B, …, in)
  const auto ys = y.chunk(k);  // k × (B, …, out)
  std::vector<torch::Tensor> adapted;
  adapted.reserve(tuners_.size());
  // Each slice is one run's whole batch: its dropout masks are its own, not tiled.
  const DropoutTiling untiled(1);
  DropoutSeedReplay replay;
  for (int64_t i = 0; i < k; ++i) {
    if (i > 0) replay.next_slice();
    adapted.push_back(tuners_[i]->adapt(xs[i], ys[i]));
  }
  return torch::cat(adapted);  // (k·B, …, out)
}

TunerParameterCount PackedTunerImpl::parameter_count() const {
  TunerParameterCount total;
  for (const auto& tuner : tuners_) {
    const auto count = tuner->parameter_count();
    total = {total.dense + count.dense, total.effective + count.effective};
  }
  return total;
}

TunerFlops PackedTunerImpl::flops_per_token() const {
  TunerFlops total;
  for (const auto& tuner : tuners_) {
    const auto flops = tuner->flops_per_token();
    total = {total.executed + flops.executed, total.sparse_ideal + flops.sparse_ideal};
  }
  return total;
}

}  // namespace capaboost
