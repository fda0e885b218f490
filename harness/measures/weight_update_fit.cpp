#include "measures/weight_update_fit.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "peft/lora.h"

namespace capaboost::harness {

Spectrum parse_spectrum(const std::string& name) {
  for (const Spectrum spectrum : {Spectrum::kFlat, Spectrum::kPowerLaw, Spectrum::kLowRank}) {
    if (to_string(spectrum) == name) return spectrum;
  }
  TORCH_CHECK(false, "unknown target spectrum '", name, "'; choose flat, power_law or low_rank");
}

std::string to_string(Spectrum spectrum) {
  switch (spectrum) {
    case Spectrum::kFlat: return "flat";
    case Spectrum::kPowerLaw: return "power_law";
    case Spectrum::kLowRank: return "low_rank";
  }
  return "";
}

std::vector<std::string> spectrum_names() {
  return {to_string(Spectrum::kFlat), to_string(Spectrum::kPowerLaw), to_string(Spectrum::kLowRank)};
}

namespace {

// A Haar-random (n, k) matrix with orthonormal columns: Q of a Gaussian matrix's QR, with the signs of
// R's diagonal moved into Q (without them Q is not uniformly distributed).
torch::Tensor haar_columns(int64_t n, int64_t k, at::Generator& generator) {
  auto gaussian = torch::randn({n, k}, generator, torch::kFloat64);  // (n, k)
  auto [q, r] = torch::linalg_qr(gaussian);                          // (n, k), (k, k)
  return q * torch::sign(r.diagonal()).unsqueeze(0);
}

// ΔW (out, in) as a training forward computes it, differentiable in the tuner's parameters. LoRA and
// CapaBoost-LoRA form it from their stacked factors (out·in·d·r multiply-adds); any other linear tuner
// through its forward on the identity, adapt(I, 0) = ΔWᵀ, which costs twice that.
torch::Tensor training_delta(SiteTunerImpl& tuner, const torch::Tensor& identity, const torch::Tensor& zeros) {
  if (auto* lora = dynamic_cast<LoraImpl*>(&tuner); lora && lora->options.dropout() == 0) {
    auto [a_cat, b_cat] = lora->stacked_factors(/*training=*/true);  // (d·r, in), (out, d·r)
    return torch::mm(b_cat, a_cat) * lora->scale();
  }
  return tuner.adapt(identity, zeros).t();
}

}  // namespace

torch::Tensor synthetic_update(const SyntheticUpdateOptions& options, uint64_t seed) {
  const int64_t rows = options.rows(), cols = options.cols(), n = std::min(rows, cols);
  TORCH_CHECK(rows > 0 && cols > 0, "synthetic_update: shape must be positive, got ", rows, "x", cols);
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  torch::Tensor target;  // (rows, cols) float64
  if (options.spectrum() == Spectrum::kLowRank) {
    TORCH_CHECK(options.rank() >= 1 && options.rank() <= n, "synthetic_update: low_rank target needs 1 <= rank <= ",
                n, ", got ", options.rank());
    target = torch::mm(torch::randn({rows, options.rank()}, generator, torch::kFloat64),
                       torch::randn({options.rank(), cols}, generator, torch::kFloat64));
  } else {
    auto sigma = options.spectrum() == Spectrum::kFlat
                     ? torch::ones({n}, torch::kFloat64)
                     : torch::pow(torch::arange(1, n + 1, torch::kFloat64), -options.exponent());  // (n)
    target = torch::mm(haar_columns(rows, n, generator) * sigma.unsqueeze(0), haar_columns(cols, n, generator).t());
  }
  return (target * (std::sqrt(static_cast<double>(rows)) / target.norm().item<double>())).to(torch::kFloat32);
}

double truncation_residual(const torch::Tensor& singular_values, int64_t k) {
  TORCH_CHECK(singular_values.dim() == 1, "truncation_residual: singular values must be 1-D");
  TORCH_CHECK(k >= 0, "truncation_residual: rank must be >= 0, got ", k);
  const auto energy = singular_values.to(torch::kFloat64).square();
  const double total = energy.sum().item<double>();
  if (k >= energy.size(0) || total == 0) return 0;
  return std::sqrt(energy.narrow(0, k, energy.size(0) - k).sum().item<double>() / total);
}

double truncation_rank_for(const torch::Tensor& singular_values, double residual) {
  TORCH_CHECK(singular_values.dim() == 1, "truncation_rank_for: singular values must be 1-D");
  const auto energy = singular_values.to(torch::kFloat64).square().contiguous();
  const int64_t n = energy.size(0);
  const double total = energy.sum().item<double>(), goal = residual * residual;
  if (residual >= 1 || total == 0) return 0;
  // left = Σ_{i>k} σ_i² / total, the floor² after k values; find the step where it crosses goal.
  const double* sigma2 = energy.data_ptr<double>();
  double left = 1;
  for (int64_t k = 0; k < n; ++k) {
    const double next = left - sigma2[k] / total;
    if (next <= goal) return static_cast<double>(k) + (sigma2[k] > 0 ? (left - goal) / (sigma2[k] / total) : 1.0);
    left = next;
  }
  return static_cast<double>(n);
}

torch::Tensor input_weighting(const torch::Tensor& inputs) {
  TORCH_CHECK(inputs.dim() == 2 && inputs.size(0) > 0, "input_weighting: inputs must be (rows, in), got ", inputs.sizes());
  const auto x = inputs.to(torch::kFloat64);
  const auto gram = torch::mm(x.t(), x) / static_cast<double>(x.size(0));  // (in, in), symmetric PSD
  auto [values, vectors] = torch::linalg_eigh(gram);
  return (vectors * values.clamp_min(0).sqrt().unsqueeze(0)).to(torch::kFloat32);  // (in, in)
}

// A squared relative residual below this is an exact fit (residual < 1e-5) for float32 factors.
constexpr double kExactLoss = 1e-10;

WeightUpdateFit fit_weight_update(SiteTunerImpl& tuner, const torch::Tensor& target,
                                  const WeightUpdateFitOptions& options) {
  TORCH_CHECK(target.dim() == 2, "fit_weight_update: the target must be (out, in), got ", target.sizes());
  TORCH_CHECK(tuner.delta_weight(), "fit_weight_update: a '", tuner.kind(),
              "' tuner is not a linear weight update, so it has no ΔW to fit");
  TORCH_CHECK(options.steps() >= 1, "fit_weight_update: steps must be >= 1, got ", options.steps());
  const int64_t out = target.size(0), in = target.size(1);
  const auto goal = target.to(torch::kFloat32);
  // Every error is read through `weigh`: the weights themselves, or their outputs on the recorded inputs.
  const torch::Tensor weighting = options.weighting();
  TORCH_CHECK(!weighting.defined() || (weighting.dim() == 2 && weighting.size(0) == target.size(1)),
              "fit_weight_update: the weighting must be (in = ", target.size(1), ", k)");
  const auto weigh = [&](const torch::Tensor& matrix) {  // (out, in) → (out, in) or (out, k)
    return weighting.defined() ? torch::mm(matrix, weighting.to(matrix.scalar_type())) : matrix;
  };
  const auto weighted_goal = weigh(goal);
  const double goal_norm = weighted_goal.to(torch::kFloat64).norm().item<double>();
  TORCH_CHECK(goal_norm > 0, "fit_weight_update: the target is zero; its relative residual is undefined");

  std::vector<torch::Tensor> parameters;
  for (auto& p : tuner.parameters()) {
    if (p.requires_grad()) parameters.push_back(p);
  }
  TORCH_CHECK(!parameters.empty(), "fit_weight_update: the '", tuner.kind(), "' tuner has no trainable parameters");
  torch::optim::Adam adam(parameters, torch::optim::AdamOptions(options.lr()));
  const auto identity = torch::eye(in);        // (in, in): row j is the input e_j
  const auto zeros = torch::zeros({in, out});  // (in, out): the frozen output adapt() adds to

  // The trace keeps every stride-th step and the last; the loss of the last tenth decides convergence.
  const int64_t stride = std::max<int64_t>(1, options.steps() / std::max<int64_t>(1, options.trace_points() - 1));
  const int64_t tail_start = options.steps() - std::max<int64_t>(1, options.steps() / 10);
  const double pi = std::acos(-1.0);
  double tail_loss = 0, loss_value = 0;
  WeightUpdateFit fit;
  tuner.train();
  for (int64_t step = 0; step < options.steps(); ++step) {
    // Cosine decay to 0: the last steps polish the fit instead of oscillating around it.
    const double lr = 0.5 * options.lr() * (1 + std::cos(pi * step / static_cast<double>(options.steps())));
    for (auto& group : adam.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    adam.zero_grad();
    auto loss = (weigh(training_delta(tuner, identity, zeros)) - weighted_goal).square().sum() / (goal_norm * goal_norm);
    loss.backward();
    adam.step();
    loss_value = loss.item<double>();
    if (step == tail_start) tail_loss = loss_value;
    if (step % stride == 0 || step == options.steps() - 1) fit.trace.push_back(std::sqrt(loss_value));
  }
  // loss_value is the loss before the last step's update; the residuals below are after it.
  tuner.eval();
  fit.delta = *tuner.delta_weight();  // (out, in) float64
  fit.residual = weigh(fit.delta - goal.to(torch::kFloat64)).norm().item<double>() / goal_norm;
  {
    torch::NoGradGuard no_grad;
    tuner.train();
    fit.train_residual = weigh(training_delta(tuner, identity, zeros) - goal).norm().item<double>() / goal_norm;
    tuner.eval();
  }
  // A loss still falling by orders of magnitude towards an exact fit has converged all the same.
  fit.converged = loss_value < kExactLoss || (tail_loss - loss_value) <= options.converged_tolerance() * tail_loss;
  return fit;
}

}  // namespace capaboost::harness
