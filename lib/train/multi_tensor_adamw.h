#pragma once
// AdamW for a model on a GPU: the step of torch::optim::AdamW through ATen's multi-tensor (_foreach_)
// kernels, about ten launches per parameter group instead of about eight per tensor.
//
// Why: a LoRA step at RoBERTa-base's shape in bf16 on an H200 is bound by the host launching ops, not by
// the GPU: one profiled step made 9,061 op calls, 655 of them the optimizer's per-tensor loop
// (docs/clusters-and-gpus.md, "Checked on a GPU"). PyTorch's AdamW takes the same path by default on
// CUDA (foreach). The arithmetic is AdamW's, op for op, on the same per-parameter state
// (AdamWParamState), so state dicts and serialisation are unchanged.
//
//   auto optimizer = std::make_unique<MultiTensorAdamW>(param_groups, torch::optim::AdamWOptions(1e-4));

#include <torch/torch.h>

namespace capaboost {

/// torch::optim::AdamW whose step() uses multi-tensor kernels when every parameter with a gradient is on
/// a GPU, no group uses AMSGrad, each group's parameters are at one step count (fresh ones at 0) and no
/// closure is given; otherwise (CPU runs among them) it is AdamW's own per-tensor step, so CPU results
/// are AdamW's bits.
class MultiTensorAdamW final : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;

  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace capaboost
