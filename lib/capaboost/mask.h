#pragma once
// CapaBoost's static random masks: a pure function of (seed, site, factor, branch), regenerated on
// demand and never stored in checkpoints.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capaboost {

/// How the d branches of a CapaBoost module see the shared factors.
enum class MaskKind {
  kNone,     ///< every branch sees the dense factor (d identical branches; an ablation)
  kDiff,     ///< independent static mask per branch and factor — the method of the paper
  kSame,     ///< one static mask per factor, shared by all branches (ablation: rank does not grow)
  kDropout,  ///< a fresh mask every training forward (ablation: regularisation without capacity)
  kNM,       ///< static N:M structured mask: exactly N kept in every M consecutive inputs (e.g. 2:4)
};

/// Parses "none", "diff", "same", "dropout", "nm" (errors name the valid choices).
MaskKind parse_mask_kind(const std::string& name);
std::string to_string(MaskKind kind);
/// Every kind's name, in declaration order: what a spec's `mask:` may say.
std::vector<std::string> mask_kind_names();

/// N and M of an N:M pattern written "N:M" ("2:4"); nullopt unless 0 <= N <= M and M > 0.
std::optional<std::pair<int64_t, int64_t>> parse_nm(const std::string& text);

struct MaskOptions {
  TORCH_ARG(MaskKind, kind) = MaskKind::kDiff;
  /// Kept fraction for none/diff/same/dropout: exactly round(numel·density) entries are kept.
  TORCH_ARG(double, density) = 0.5;
  /// N and M of the N:M kind (density is then N/M).
  TORCH_ARG(int64_t, n) = 2;
  TORCH_ARG(int64_t, m) = 4;
  TORCH_ARG(uint64_t, seed) = 0;
};

/// Identifies one mask. `step` only matters for the dropout kind (its training-step counter).
struct MaskKey {
  std::string site;    ///< dotted site name, e.g. "encoder.layer.0.attention.self.query"
  std::string factor;  ///< factor name within the tuner, e.g. "A"
  int64_t branch = 0;
  int64_t step = 0;
};

/// A variant's own mask rule: the boolean (rows, inputs) mask branch `key.branch` applies to factor
/// `key.factor` at site `key.site`. Must be a pure function of its arguments (masks are regenerated,
/// never stored).
using MaskRule = std::function<torch::Tensor(const MaskKey& key, torch::IntArrayRef shape)>;

/// The 64-bit seed of a mask's generator: a stable hash of the options' seed and the key (identical
/// across processes, platforms and runs). For the `same` kind the branch is ignored; for every kind
/// but `dropout` the step is ignored.
uint64_t mask_stream_seed(const MaskOptions& options, const MaskKey& key);

/// A boolean mask of `shape` (2-D: (rows, inputs); N:M groups run along the last, input, dimension).
/// kNone gives all true.
torch::Tensor make_mask(const MaskOptions& options, const MaskKey& key, torch::IntArrayRef shape);

/// Number of entries a mask of `numel` entries keeps under `options`.
int64_t kept_count(const MaskOptions& options, int64_t numel);

}  // namespace capaboost
