#include "models/parallel_dropout.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cmath>

#include "models/dropout_packing.h"

namespace capaboost {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): the state advances by the golden-ratio increment and each
// output is a bijective mix of it, so output i is a pure function of (seed, i). It passes BigCrush.
inline uint64_t splitmix64(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Element i keeps iff the 32-bit half i%2 of output i/2 is ≥ threshold = round(p·2³²): P(keep) = 1 - p
// to within 2⁻³². out[i] = keep ? in[i]·scale : 0 — used for the forward (in = x) and the backward
// (in = grad, same seed, so the same mask). With `copies` > 1 the tensor is that many equal slices
// along its first dimension and each gets the mask of one slice (models/dropout_packing.h).
void apply_mask(const torch::Tensor& in, torch::Tensor& out, double p, uint64_t seed, int64_t copies) {
  const auto threshold = static_cast<uint64_t>(std::llround(std::ldexp(p, 32)));
  const double scale = 1.0 / (1.0 - p);
  TORCH_CHECK(copies >= 1 && in.dim() >= 1 && in.size(0) % copies == 0, "parallel_dropout: a tensor of shape ",
              in.sizes(), " does not split into ", copies, " equal slices along its first dimension");
  const int64_t n = in.numel() / copies;  // elements per slice
  AT_DISPATCH_FLOATING_TYPES_AND2(torch::kHalf, torch::kBFloat16, in.scalar_type(), "parallel_dropout", [&] {
    const auto s = static_cast<scalar_t>(scale);
    for (int64_t slice = 0; slice < copies; ++slice) {
      const scalar_t* src = in.data_ptr<scalar_t>() + slice * n;
      scalar_t* dst = out.data_ptr<scalar_t>() + slice * n;
      // Even chunk boundaries: each 64-bit draw serves two neighbouring elements.
      at::parallel_for(0, (n + 1) / 2, /*grain_size=*/8192, [&](int64_t begin, int64_t end) {
        for (int64_t pair = begin; pair < end; ++pair) {
          const uint64_t bits = splitmix64(seed, static_cast<uint64_t>(pair));
          const int64_t i = 2 * pair;
          dst[i] = (bits & 0xFFFFFFFFULL) >= threshold ? src[i] * s : scalar_t(0);
          if (i + 1 < n) dst[i + 1] = (bits >> 32) >= threshold ? src[i + 1] * s : scalar_t(0);
        }
      });
    }
  });
}

class ParallelDropoutFunction : public torch::autograd::Function<ParallelDropoutFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, double p,
                               int64_t seed, int64_t copies) {
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    ctx->saved_data["copies"] = copies;  // backward runs outside the packing scope
    const auto in = x.contiguous();
    auto out = torch::empty_like(in);
    apply_mask(in, out, p, static_cast<uint64_t>(seed), copies);
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto grad = grads[0].contiguous();
    auto grad_x = torch::empty_like(grad);
    apply_mask(grad, grad_x, ctx->saved_data["p"].toDouble(), static_cast<uint64_t>(ctx->saved_data["seed"].toInt()),
               ctx->saved_data["copies"].toInt());
    return {grad_x, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor parallel_dropout(const torch::Tensor& x, double p, uint64_t seed) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "dropout probability must be in [0, 1), got ", p);
  TORCH_CHECK(x.device().is_cpu(), "parallel_dropout runs on the CPU; got a tensor on ", x.device(),
              " (ParallelDropout uses the device's own dropout there)");
  // The seed travels through autograd's saved data as an int64; the bit pattern is what matters.
  return ParallelDropoutFunction::apply(x, p, static_cast<int64_t>(seed), dropout_tiling());
}

ParallelDropoutImpl::ParallelDropoutImpl(const ParallelDropoutOptions& options_) : options(options_) {
  TORCH_CHECK(options.p() >= 0.0 && options.p() < 1.0, "ParallelDropout: p must be in [0, 1), got ",
              options.p());
}

torch::Tensor ParallelDropoutImpl::forward(const torch::Tensor& x) {
  if (!is_training() || options.p() == 0.0) return x;
  // The counter-based mask is a CPU kernel; other devices have fast generators of their own (their
  // masks differ from the CPU's, as any device's random streams do).
  if (!x.device().is_cpu()) return torch::dropout(x, options.p(), /*train=*/true);
  return parallel_dropout(x, options.p(), next_dropout_seed());
}

void ParallelDropoutImpl::pretty_print(std::ostream& stream) const {
  stream << "capaboost::ParallelDropout(p=" << options.p() << ")";
}

}  // namespace capaboost
