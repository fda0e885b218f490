#include "models/dropout_residual_layer_norm.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "models/dropout_mask.h"
#include "runtime/autocast_compat.h"

namespace capaboost {
namespace {

// The row kernels are compiled twice (GCC's target_clones): for AVX-512 and for the generic x86-64 the
// build targets, where they run on 4-wide SSE and lose to ATen's own AVX-512 LayerNorm. The loader picks
// the clone for the CPU it runs on. Their sums are `omp simd` reductions: the file is compiled with
// OpenMP (lib/CMakeLists.txt), which lets the compiler split a sum over vector lanes, as it may not for
// a plain float loop.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPABOOST_ROW_KERNEL __attribute__((target_clones("avx512f", "default")))
#else
#define CAPABOOST_ROW_KERNEL
#endif

// One row forward: s = dropped + r (dropped already holds dropout(x), or x), then y = LayerNorm(s).
// Two passes in cache for the statistics: the mean, then the variance around it (no cancellation of
// E[s²] − μ²). Returns {mean, rstd}.
CAPABOOST_ROW_KERNEL std::pair<float, float> forward_row(float* s, const float* r, const float* gamma,
                                                          const float* beta, float* y, int64_t C, float eps) {
  float total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t c = 0; c < C; ++c) {
    s[c] += r[c];
    total += s[c];
  }
  const float mean = total / static_cast<float>(C);
  float var = 0;
#pragma omp simd reduction(+ : var)
  for (int64_t c = 0; c < C; ++c) var += (s[c] - mean) * (s[c] - mean);
  const float rstd = 1.0f / std::sqrt(var / static_cast<float>(C) + eps);
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) y[c] = (s[c] - mean) * rstd * gamma[c] + beta[c];
  return {mean, rstd};
}

// One row backward: grad_sum = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂)) with ĝ = grad · γ and
// x̂ = (s − mean) · rstd; γ's and β's gradients accumulate into grad_gamma / grad_beta when given.
CAPABOOST_ROW_KERNEL void backward_row(const float* g, const float* s, float mean, float rstd, const float* gamma,
                                       float* grad_sum, float* grad_gamma, float* grad_beta, int64_t C) {
  float sum_g = 0, sum_gx = 0;
#pragma omp simd reduction(+ : sum_g, sum_gx)
  for (int64_t c = 0; c < C; ++c) {
    const float ghat = g[c] * gamma[c];
    sum_g += ghat;
    sum_gx += ghat * (s[c] - mean) * rstd;
  }
  const float mean_g = sum_g / static_cast<float>(C), mean_gx = sum_gx / static_cast<float>(C);
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) grad_sum[c] = rstd * (g[c] * gamma[c] - mean_g - (s[c] - mean) * rstd * mean_gx);
  if (grad_gamma != nullptr) {
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) {
      grad_gamma[c] += g[c] * (s[c] - mean) * rstd;
      grad_beta[c] += g[c];
    }
  }
}

struct Saved {
  torch::Tensor sum;   // (N, C): dropout(x) + residual, LayerNorm's input
  torch::Tensor mean;  // (N)
  torch::Tensor rstd;  // (N): 1 / sqrt(var + eps)
};

// Forward over N rows of C: sum, per-row mean and rstd, and the output.
Saved forward_rows(const torch::Tensor& x, const torch::Tensor& residual, double p, uint64_t seed,
                   const torch::Tensor& weight, const torch::Tensor& bias, double eps, torch::Tensor& out) {
  const int64_t C = x.size(-1), N = x.numel() / C;
  Saved saved{torch::empty({N, C}, x.options()), torch::empty({N}, x.options()), torch::empty({N}, x.options())};
  out = torch::empty_like(x);
  const float* xp = x.data_ptr<float>();
  const float* rp = residual.data_ptr<float>();
  const float* gamma = weight.data_ptr<float>();
  const float* beta = bias.data_ptr<float>();
  float* sp = saved.sum.data_ptr<float>();
  float* mp = saved.mean.data_ptr<float>();
  float* vp = saved.rstd.data_ptr<float>();
  float* yp = out.data_ptr<float>();
  const uint64_t threshold = dropout_threshold(p);
  const auto scale = static_cast<float>(1.0 / (1.0 - p));
  at::parallel_for(0, N, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      float* s = sp + row * C;
      if (p > 0) {
        apply_dropout_mask(xp + row * C, s, row * C, C, seed, threshold, scale);
      } else {
        std::copy(xp + row * C, xp + (row + 1) * C, s);
      }
      const auto [mean, rstd] = forward_row(s, rp + row * C, gamma, beta, yp + row * C, C, static_cast<float>(eps));
      mp[row] = mean;
      vp[row] = rstd;
    }
  });
  return saved;
}

class DropoutResidualLayerNorm : public torch::autograd::Function<DropoutResidualLayerNorm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& residual, const torch::Tensor& weight, const torch::Tensor& bias,
                               double p, int64_t seed, double eps) {
    RECORD_FUNCTION("capaboost::dropout_residual_layer_norm", std::vector<c10::IValue>());
    torch::Tensor out;
    const Saved saved = forward_rows(x.contiguous(), residual.contiguous(), p, static_cast<uint64_t>(seed),
                                     weight.contiguous(), bias.contiguous(), eps, out);
    ctx->save_for_backward({saved.sum, saved.mean, saved.rstd, weight});
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    RECORD_FUNCTION("capaboost::dropout_residual_layer_norm_backward", std::vector<c10::IValue>());
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor grad_out = grads[0].contiguous();
    const torch::Tensor& sum = saved[0];
    const torch::Tensor weight = saved[3].contiguous();
    const double p = ctx->saved_data["p"].toDouble();
    const auto seed = static_cast<uint64_t>(ctx->saved_data["seed"].toInt());
    const int64_t C = sum.size(1), N = sum.size(0);
    const bool param_grads = ctx->needs_input_grad(2) || ctx->needs_input_grad(3);
    auto grad_residual = torch::empty_like(grad_out);
    auto grad_x = torch::empty_like(grad_out);
    // Weight and bias gradients sum over rows: one partial row per thread, added at the end.
    const torch::Tensor partial =
        param_grads ? torch::zeros({at::get_num_threads(), 2, C}, sum.options()) : torch::Tensor();
    const float* gy = grad_out.data_ptr<float>();
    const float* sp = sum.data_ptr<float>();
    const float* mp = saved[1].data_ptr<float>();
    const float* vp = saved[2].data_ptr<float>();
    const float* gamma = weight.data_ptr<float>();
    float* gr = grad_residual.data_ptr<float>();
    float* gx = grad_x.data_ptr<float>();
    float* pp = param_grads ? partial.data_ptr<float>() : nullptr;
    const uint64_t threshold = dropout_threshold(p);
    const auto scale = static_cast<float>(1.0 / (1.0 - p));
    at::parallel_for(0, N, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
      float* grad_gamma = param_grads ? pp + at::get_thread_num() * 2 * C : nullptr;
      float* grad_beta = param_grads ? grad_gamma + C : nullptr;
      for (int64_t row = begin; row < end; ++row) {
        float* grr = gr + row * C;
        backward_row(gy + row * C, sp + row * C, mp[row], vp[row], gamma, grr, grad_gamma, grad_beta, C);
        if (p > 0) {
          apply_dropout_mask(grr, gx + row * C, row * C, C, seed, threshold, scale);
        } else {
          std::copy(grr, grr + C, gx + row * C);
        }
      }
    });
    torch::Tensor grad_weight, grad_bias;
    if (param_grads) {
      const auto totals = partial.sum(0);  // (2, C)
      grad_weight = totals[0];
      grad_bias = totals[1];
    }
    return {grad_x, grad_residual, grad_weight, grad_bias, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool dropout_residual_layer_norm_applies(const torch::Tensor& x, const torch::Tensor& residual,
                                         const torch::Tensor& weight, const torch::Tensor& bias) {
  const auto is_cpu_float = [](const torch::Tensor& t) {
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat;
  };
  return !runtime::autocast_enabled(c10::DeviceType::CPU) && is_cpu_float(x) && is_cpu_float(residual) && is_cpu_float(weight) &&
         is_cpu_float(bias) && x.dim() >= 1 && x.sizes() == residual.sizes() && weight.dim() == 1 &&
         weight.size(0) == x.size(-1) && bias.sizes() == weight.sizes();
}

torch::Tensor dropout_residual_layer_norm(const torch::Tensor& x, const torch::Tensor& residual, double p,
                                          uint64_t seed, const torch::Tensor& weight, const torch::Tensor& bias,
                                          double eps) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "dropout_residual_layer_norm: p must be in [0, 1), got ", p);
  TORCH_CHECK(dropout_residual_layer_norm_applies(x, residual, weight, bias),
              "dropout_residual_layer_norm: needs float32 CPU x and residual of one shape (…, C) and weight, bias (C); "
              "got x ", x.sizes(), ", residual ", residual.sizes(), ", weight ", weight.sizes(),
              " (check dropout_residual_layer_norm_applies first)");
  // The seed travels through autograd's saved data as an int64; the bit pattern is what matters.
  return DropoutResidualLayerNorm::apply(x, residual, weight, bias, p, static_cast<int64_t>(seed), eps);
}

}  // namespace capaboost
