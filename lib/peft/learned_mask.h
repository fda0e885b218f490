#pragma once
// ProPETL's learned binary masks (Zeng et al., 2023): real-valued scores s per masked entry, the mask
// keeps the entries of largest |s|, and training moves the scores through a straight-through estimator.
//   forward:  M = 0 for the ⌊(1 − keep)·n⌋ entries of smallest |s|, 1 elsewhere (per tensor);
//   backward: ∂L/∂s = sign(s) ⊙ ∂L/∂M (identity through the threshold, then through |s|).

#include <torch/torch.h>

namespace capaboost {

/// The mask of `scores` (any shape) keeping the fraction `keep` of its entries, differentiable by
/// the straight-through rule above. Its value is exactly 0 or 1.
torch::Tensor learned_mask(const torch::Tensor& scores, double keep);

/// Fresh scores of `shape` as ProPETL starts them: U(±1/√fan_in), fan_in = size(1) × the trailing
/// sizes (PyTorch's Kaiming-uniform with a = √5), or `fan_in` when given (> 0): ProPETL-Prefix draws
/// all layers' scores as one tensor, so each layer's slice has that tensor's fan-in.
torch::Tensor initial_mask_scores(torch::IntArrayRef shape, int64_t fan_in = 0);

/// Entries a mask of `numel` entries keeps at `keep`: numel − ⌊(1 − keep)·numel⌋.
int64_t kept_entries(int64_t numel, double keep);

}  // namespace capaboost
