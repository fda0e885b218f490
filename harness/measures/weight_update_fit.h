#pragma once
// How much of a target weight update ΔW* a PEFT parameterisation can express: fit the tuner on one
// linear site by minimising ‖ΔW(θ) − ΔW*‖_F with Adam, and compare the residual with the Eckart–Young
// floor, the best any matrix of a given rank can do. The capacity measure drives it; the
// synthetic targets give spectra of a known shape.
//
//   auto target = synthetic_update({768, 768, Spectrum::kPowerLaw}, /*seed=*/42);   // (768, 768)
//   auto fit = fit_weight_update(*site->tuner(), target, WeightUpdateFitOptions().steps(1000));
//   double floor = truncation_residual(torch::linalg_svdvals(target), 16);

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sites/site_tuner.h"

namespace capaboost::harness {

/// The singular-value profile of a synthetic target.
enum class Spectrum {
  kFlat,      ///< every σ_i equal: a full-rank update with no preferred direction
  kPowerLaw,  ///< σ_i = i^(−exponent): a few strong directions and a long tail
  kLowRank,   ///< exactly `rank` nonzero σ (Gaussian factors): what LoRA r ≥ rank represents exactly
};
Spectrum parse_spectrum(const std::string& name);
std::string to_string(Spectrum spectrum);
/// "flat", "power_law", "low_rank": what a spec's `target:` may say for a synthetic target.
std::vector<std::string> spectrum_names();

struct SyntheticUpdateOptions {
  SyntheticUpdateOptions(int64_t rows, int64_t cols, Spectrum spectrum) : rows_(rows), cols_(cols), spectrum_(spectrum) {}
  TORCH_ARG(int64_t, rows);
  TORCH_ARG(int64_t, cols);
  TORCH_ARG(Spectrum, spectrum);
  /// Nonzero singular values of kLowRank.
  TORCH_ARG(int64_t, rank) = 16;
  /// Decay exponent of kPowerLaw.
  TORCH_ARG(double, exponent) = 1.0;
};

/// A (rows, cols) float32 target with the requested spectrum and Haar-random singular vectors (Gaussian
/// factors for kLowRank), scaled to ‖ΔW*‖_F = √rows — entries of order 1/√cols, the scale of a LoRA
/// factor at initialisation, so one optimiser setting suits every target. Drawn from its own
/// generator seeded by `seed`: the global torch generator is left alone.
torch::Tensor synthetic_update(const SyntheticUpdateOptions& options, uint64_t seed);

/// The Eckart–Young floor: the relative residual ‖ΔW* − best rank-k approximation‖_F / ‖ΔW*‖_F =
/// √(Σ_{i>k} σ_i²) / √(Σ σ_i²), from the descending singular values. 0 for k ≥ their number.
double truncation_residual(const torch::Tensor& singular_values, int64_t k);

/// The inverse of truncation_residual: the (fractional) rank k at which the Eckart–Young floor falls to
/// `residual`, the discarded energy interpolated linearly within a rank step. 0 when residual ≥ 1; the
/// number of singular values when residual ≤ 0. A truncated SVD (and so LoRA, which reaches it) needs
/// k·(out + in) parameters to reach that residual.
double truncation_rank_for(const torch::Tensor& singular_values, double residual);

/// M (in, in) with M Mᵀ = XᵀX / rows for inputs X (rows, in): ‖(ΔW − ΔW*) M‖_F² is the mean squared
/// output error ‖(ΔW − ΔW*) x‖² over the rows x of X. Float32.
torch::Tensor input_weighting(const torch::Tensor& inputs);

struct WeightUpdateFitOptions {
  TORCH_ARG(int64_t, steps) = 1000;
  /// When defined, M (in, k): the fit minimises and reports the output error ‖(ΔW − ΔW*) M‖_F /
  /// ‖ΔW* M‖_F (input_weighting of real activations) instead of the weights' own norm.
  TORCH_ARG(torch::Tensor, weighting) = torch::Tensor();
  /// Adam's peak learning rate, decayed to 0 on a cosine.
  TORCH_ARG(double, lr) = 5e-3;
  /// Loss values kept for the trace (evenly spaced, the last step included).
  TORCH_ARG(int64_t, trace_points) = 11;
  /// A fit has converged when its loss fell by less than this fraction over the last 10% of the steps
  /// (or is an exact fit: a relative residual below 1e-5).
  TORCH_ARG(double, converged_tolerance) = 1e-3;
};

struct WeightUpdateFit {
  /// ‖ΔW_eval − ΔW*‖_F / ‖ΔW*‖_F (with a weighting M: ‖(ΔW_eval − ΔW*) M‖_F / ‖ΔW* M‖_F) with the tuner in eval mode (what the method deploys; for the dropout
  /// mask kind that is its expectation, not the last training mask).
  double residual = 0;
  /// The training-mode relative residual of the last step (equal to `residual` but for dropout masks).
  double train_residual = 0;
  bool converged = false;
  std::vector<double> trace;  ///< relative residual at evenly spaced steps
  torch::Tensor delta;        ///< ΔW_eval (out, in) float64
};

/// Fits `tuner`'s parameters (all that require grad; the site's frozen weight is not involved) so that
/// its weight update approaches `target` (out, in). ΔW(θ) is what a training forward computes (LoRA's
/// stacked masked factors, any other tuner's forward on the identity, adapt(I, 0) = ΔWᵀ), so a tuner
/// fits as it trains (static masks, learned masks, fresh dropout masks each step) and the gradient is
/// the method's own. The tuner must report
/// delta_weight() (a linear weight update). Leaves the tuner in eval mode.
WeightUpdateFit fit_weight_update(SiteTunerImpl& tuner, const torch::Tensor& target,
                                  const WeightUpdateFitOptions& options = {});

}  // namespace capaboost::harness
