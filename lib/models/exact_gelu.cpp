#include "models/exact_gelu.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <cmath>
#include <vector>

#include "models/vector_exp.h"

namespace capaboost {
namespace {

// The span kernels are compiled for AVX-512 and for the build's generic x86-64 (GCC's target_clones, as
// models/dropout_residual_layer_norm.cpp); the loader picks the clone for the CPU. Their loops are
// `omp simd` (the file is compiled with OpenMP, lib/CMakeLists.txt), branch-free: both tails are
// computed and one selected.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPABOOST_GELU_KERNEL __attribute__((target_clones("avx512f", "default")))
#else
#define CAPABOOST_GELU_KERNEL
#endif

constexpr float kSqrtHalf = 0.707106781186547524f;       // 1/√2
constexpr float kInvSqrtTwoPi = 0.398942280401432678f;   // 1/√(2π)

// erfc(a)·e^{a²} for a ≥ 0 (the scaled complementary error function): a degree-9 polynomial in
// t = 1/(1 + a/2), which maps a ∈ [0, ∞) into (0, 1] where the function is smooth. Coefficients fitted
// for this file (Lawson-weighted least squares on the relative error against torch.special.erfcx in
// float64, over a ∈ [0, 9.4]: past 9.33, e^{−a²} is below 2⁻¹²⁵ and the tail is 0). Evaluated in float,
// within 3.6e-7 relative error, most of it the rounding of t.
inline float scaled_erfc(float a) {
  const float t = 1.0f / (1.0f + 0.5f * a);
  float q = -5.392434050e-02f;
  q = q * t + 2.580021281e-01f;
  q = q * t - 4.281603971e-01f;
  q = q * t + 2.042358751e-01f;
  q = q * t + 3.046033552e-02f;
  q = q * t + 1.744783865e-01f;
  q = q * t + 2.519838781e-01f;
  q = q * t + 2.806627408e-01f;
  q = q * t + 2.822696409e-01f;
  return q * t - 8.277362758e-06f;
}

// Φ(x) from the tail Φ(−|x|) = erfc(|x|/√2)/2, never as 1 + erf(x/√2): for negative x that sum cancels,
// while the tail keeps its relative accuracy. Sets `density_scaled` = e^{−x²/2}, which φ(x) is up to 1/√(2π).
inline float normal_cdf(float x, float& density_scaled) {
  const float a = std::fabs(x) * kSqrtHalf;
  density_scaled = exp_of_nonpositive(-a * a);
  const float tail = 0.5f * scaled_erfc(a) * density_scaled;
  return x < 0.0f ? tail : 1.0f - tail;
}

CAPABOOST_GELU_KERNEL void gelu_span(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float density_scaled;
    y[i] = x[i] * normal_cdf(x[i], density_scaled);
  }
}

// d/dx x·Φ(x) = Φ(x) + x·φ(x).
CAPABOOST_GELU_KERNEL void gelu_backward_span(const float* grad_y, const float* x, float* grad_x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float density_scaled;
    const float cdf = normal_cdf(x[i], density_scaled);
    grad_x[i] = grad_y[i] * (cdf + x[i] * kInvSqrtTwoPi * density_scaled);
  }
}

// Elementwise spans over torch's intra-op threads, a span at least ATen's grain (32,768 elements) long.
template <typename Kernel>
void for_spans(int64_t n, const Kernel& kernel) {
  at::parallel_for(0, n, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) { kernel(begin, end - begin); });
}

class ExactGelu : public torch::autograd::Function<ExactGelu> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
    RECORD_FUNCTION("capaboost::exact_gelu", std::vector<c10::IValue>());
    const torch::Tensor input = x.contiguous();
    torch::Tensor out = torch::empty_like(input);
    const float* xp = input.data_ptr<float>();
    float* yp = out.data_ptr<float>();
    for_spans(input.numel(), [&](int64_t begin, int64_t count) { gelu_span(xp + begin, yp + begin, count); });
    ctx->save_for_backward({input});
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    RECORD_FUNCTION("capaboost::exact_gelu_backward", std::vector<c10::IValue>());
    const torch::Tensor input = ctx->get_saved_variables()[0];
    const torch::Tensor grad_out = grads[0].contiguous();
    torch::Tensor grad_in = torch::empty_like(input);
    const float* gy = grad_out.data_ptr<float>();
    const float* xp = input.data_ptr<float>();
    float* gx = grad_in.data_ptr<float>();
    for_spans(input.numel(),
              [&](int64_t begin, int64_t count) { gelu_backward_span(gy + begin, xp + begin, gx + begin, count); });
    return {grad_in};
  }
};

}  // namespace

bool exact_gelu_applies(const torch::Tensor& x) {
  return x.defined() && x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.layout() == torch::kStrided;
}

torch::Tensor exact_gelu(const torch::Tensor& x) {
  TORCH_CHECK(exact_gelu_applies(x), "exact_gelu: needs a float32 CPU tensor, got ", x.scalar_type(), " on ",
              x.device(), " (check exact_gelu_applies first; torch::gelu takes the rest)");
  return ExactGelu::apply(x);
}

}  // namespace capaboost
