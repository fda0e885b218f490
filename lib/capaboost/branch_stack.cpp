#include "capaboost/branch_stack.h"

namespace capaboost {

BranchStack::BranchStack(CapaBoostOptions options, std::string site)
    : options_(std::move(options)), site_(std::move(site)) {
  TORCH_CHECK(options_.branches() >= 1, "CapaBoost at site '", site_, "': branches must be >= 1, got ",
              options_.branches());
}

torch::Tensor BranchStack::branch_mask(const std::string& factor, int64_t branch,
                                       torch::IntArrayRef shape) const {
  const MaskKey key{site_, factor, branch, step_};
  if (options_.rule()) {
    auto mask = options_.rule()(key, shape).to(torch::kBool);
    TORCH_CHECK(mask.sizes() == shape, "CapaBoost at site '", site_, "': the mask rule returned shape ",
                mask.sizes(), " for factor '", factor, "' of shape ", shape);
    return mask;
  }
  return make_mask(options_.mask(), key, shape);
}

torch::Tensor BranchStack::stacked_masks(const std::string& factor, const torch::Tensor& weight,
                                         int64_t branch_dim) {
  const bool resampled = options_.mask().kind() == MaskKind::kDropout;
  auto cached = cache_.find(factor);
  if (!resampled && cached != cache_.end() && cached->second.dtype() == weight.dtype() &&
      cached->second.device() == weight.device()) {
    return cached->second;
  }
  std::vector<torch::Tensor> masks;
  masks.reserve(options_.branches());
  for (int64_t i = 0; i < options_.branches(); ++i) masks.push_back(branch_mask(factor, i, weight.sizes()));
  // Stored in the factor's dtype: the per-forward cost is then one broadcast multiply.
  auto stacked = torch::stack(masks, branch_dim).to(weight.options());
  if (!resampled) cache_[factor] = stacked;
  return stacked;
}

std::vector<torch::Tensor> BranchStack::applied_masks() const {
  std::vector<torch::Tensor> masks;
  for (const auto& [factor, stacked] : cache_) masks.push_back(stacked.to(torch::kCPU));
  return masks;
}

torch::Tensor BranchStack::stack(const std::string& factor, const torch::Tensor& weight, int64_t branch_dim,
                                 bool training) {
  TORCH_CHECK(weight.dim() == 2 && (branch_dim == 0 || branch_dim == 1), "BranchStack::stack: factor '",
              factor, "' at site '", site_, "' must be 2-D with branch_dim 0 or 1, got shape ",
              weight.sizes(), " and dim ", branch_dim);
  const int64_t d = options_.branches();
  const MaskKind kind = options_.mask().kind();
  if (d == 1 && kind == MaskKind::kNone) return weight;

  auto expanded = weight.unsqueeze(branch_dim);  // (1, rows, cols) or (rows, 1, cols)
  torch::Tensor branches;
  if (kind == MaskKind::kNone) {
    std::vector<int64_t> sizes = expanded.sizes().vec();
    sizes[branch_dim] = d;
    branches = expanded.expand(sizes);
  } else if (kind == MaskKind::kDropout && !training) {
    std::vector<int64_t> sizes = expanded.sizes().vec();
    sizes[branch_dim] = d;
    branches = expanded.expand(sizes) * options_.mask().density();
  } else {
    branches = expanded * stacked_masks(factor, weight, branch_dim);
  }
  return branches.flatten(branch_dim, branch_dim + 1);
}

int64_t BranchStack::effective_count(const std::string& factor, torch::IntArrayRef shape) const {
  const MaskKind kind = options_.mask().kind();
  const int64_t numel = shape[0] * shape[1];
  if (kind == MaskKind::kNone || kind == MaskKind::kDropout) return numel;
  auto seen = torch::zeros(shape, torch::kBool);
  const int64_t distinct = kind == MaskKind::kSame && !options_.rule() ? 1 : options_.branches();
  for (int64_t i = 0; i < distinct; ++i) seen.logical_or_(branch_mask(factor, i, shape));
  return seen.sum().item<int64_t>();
}

int64_t BranchStack::kept_per_branch(const std::string& factor, torch::IntArrayRef shape) const {
  if (!options_.rule()) return kept_count(options_.mask(), shape[0] * shape[1]);
  // A rule's masks need not keep the same count in every branch: the mean over branches.
  int64_t kept = 0;
  for (int64_t i = 0; i < options_.branches(); ++i) kept += branch_mask(factor, i, shape).sum().item<int64_t>();
  return kept / options_.branches();
}

}  // namespace capaboost
