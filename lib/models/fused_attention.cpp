#include "models/fused_attention.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <vector>

#include "models/dropout_mask.h"
#include "models/masked_softmax_dropout.h"
#include "models/softmax_rows.h"
#include "runtime/autocast_compat.h"
#include "runtime/direct_sgemm.h"

namespace capaboost {
namespace {

// One head's matrix of a (B, H, rows, d) operand: rows at the tensor's row stride, unit column stride
// (fused_attention_applies checked it).
runtime::SgemmOperand head_rows(const torch::Tensor& t, int64_t batch, int64_t head) {
  return {t.data_ptr<float>() + batch * t.stride(0) + head * t.stride(1), t.stride(2), 1};
}

// The same matrix transposed, (d, rows), as a view: no copy.
runtime::SgemmOperand head_rows_transposed(const torch::Tensor& t, int64_t batch, int64_t head) {
  return {t.data_ptr<float>() + batch * t.stride(0) + head * t.stride(1), 1, t.stride(2)};
}

// A (rows, cols) row-major buffer of a thread, and its transpose.
runtime::SgemmOperand plain(const float* data, int64_t cols) { return {data, cols, 1}; }
runtime::SgemmOperand plain_transposed(const float* data, int64_t cols) { return {data, 1, cols}; }

// c (m × n, leading dimension ldc) = alpha · a · b. Layouts were checked once, before the heads' loop, by
// fused_attention_applies; a refusal here is a bug.
void sgemm(int64_t m, int64_t n, int64_t k, double alpha, const runtime::SgemmOperand& a,
           const runtime::SgemmOperand& b, float* c, int64_t ldc) {
  TORCH_INTERNAL_ASSERT(runtime::direct_sgemm(m, n, k, static_cast<float>(alpha), a, b, 0.0f, c, ldc),
                        "fused_attention: the BLAS refused a ", m, "x", k, " @ ", k, "x", n, " product");
}

class FusedAttention : public torch::autograd::Function<FusedAttention> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& mask, double scale, double p,
                               int64_t seed) {
    RECORD_FUNCTION("capaboost::fused_attention", std::vector<c10::IValue>());
    const int64_t B = q.size(0), H = q.size(1), Tq = q.size(2), d = q.size(3), T = k.size(2);
    const auto m = mask.numel() > 0 ? mask.contiguous() : torch::Tensor();  // (B, 1, 1, T) or none
    auto probs = torch::empty({B, H, Tq, T}, q.options());                  // softmax, kept for backward
    auto context = torch::empty({B, Tq, H, d}, q.options());                // the heads side by side
    const float* mp = m.defined() ? m.data_ptr<float>() : nullptr;
    float* yp = probs.data_ptr<float>();
    float* cp = context.data_ptr<float>();
    const uint64_t threshold = dropout_threshold(p);
    const auto keep_scale = static_cast<float>(1.0 / (1.0 - p));
    at::parallel_for(0, B * H, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
      std::vector<float> scores(Tq * T);  // this head's scale · q kᵀ, then (p > 0) its dropped probabilities
      for (int64_t head = begin; head < end; ++head) {
        const int64_t b = head / H, h = head % H;
        sgemm(Tq, T, d, scale, head_rows(q, b, h), head_rows_transposed(k, b, h), scores.data(), T);
        float* y = yp + head * Tq * T;
        for (int64_t i = 0; i < Tq; ++i) {
          softmax_row(scores.data() + i * T, mp != nullptr ? mp + b * T : nullptr, y + i * T, T);
          // Element (head, i, j) of the (B, H, Tq, T) probabilities: masked_softmax_dropout's index.
          if (p > 0) {
            apply_dropout_mask(y + i * T, scores.data() + i * T, (head * Tq + i) * T, T, static_cast<uint64_t>(seed),
                               threshold, keep_scale);
          }
        }
        sgemm(Tq, d, T, 1.0, plain(p > 0 ? scores.data() : y, T), head_rows(v, b, h), cp + b * Tq * H * d + h * d,
              H * d);
      }
    });
    ctx->save_for_backward({q, k, v, probs});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    return context.permute({0, 2, 1, 3});  // (B, H, Tq, d)
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    RECORD_FUNCTION("capaboost::fused_attention_backward", std::vector<c10::IValue>());
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &probs = saved[3];
    const double scale = ctx->saved_data["scale"].toDouble();
    const double p = ctx->saved_data["p"].toDouble();
    const auto seed = static_cast<uint64_t>(ctx->saved_data["seed"].toInt());
    const int64_t B = q.size(0), H = q.size(1), Tq = q.size(2), d = q.size(3), T = k.size(2);
    // The context's gradient usually arrives as the (B, H, Tq, d) view of a (B, Tq, C) gradient: read in place.
    auto grad_context = grads[0];
    if (grad_context.stride(3) != 1 || grad_context.stride(2) < d) grad_context = grad_context.contiguous();
    const bool want_q = ctx->needs_input_grad(0), want_k = ctx->needs_input_grad(1), want_v = ctx->needs_input_grad(2);
    // Gradients in (B, T, H, d) memory, handed back as (B, H, T, d) views: the permute and view that split
    // the heads off the projections then pass them back to (B, T, C) without a copy.
    const auto heads_side_by_side = [&](bool wanted, int64_t rows) {
      return wanted ? torch::empty({B, rows, H, d}, q.options()) : torch::Tensor();
    };
    auto grad_q = heads_side_by_side(want_q, Tq), grad_k = heads_side_by_side(want_k, T),
         grad_v = heads_side_by_side(want_v, T);
    const float* yp = probs.data_ptr<float>();
    const uint64_t threshold = dropout_threshold(p);
    const auto keep_scale = static_cast<float>(1.0 / (1.0 - p));
    at::parallel_for(0, B * H, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
      std::vector<float> dropped(p > 0 ? Tq * T : 0), grad_scores(Tq * T);
      for (int64_t head = begin; head < end; ++head) {
        const int64_t b = head / H, h = head % H;
        const float* y = yp + head * Tq * T;
        const auto grad_c = head_rows(grad_context, b, h);  // (Tq, d)
        if (p > 0) {
          for (int64_t i = 0; i < Tq; ++i) {
            apply_dropout_mask(y + i * T, dropped.data() + i * T, (head * Tq + i) * T, T, seed, threshold, keep_scale);
          }
        }
        const float* kept = p > 0 ? dropped.data() : y;  // what multiplied v
        if (want_v) {
          sgemm(T, d, Tq, 1.0, plain_transposed(kept, T), grad_c, grad_v.data_ptr<float>() + b * T * H * d + h * d,
                H * d);
        }
        if (!want_q && !want_k) continue;
        // The gradient of the dropped probabilities, then back through the mask and the softmax in place.
        sgemm(Tq, T, d, 1.0, grad_c, head_rows_transposed(v, b, h), grad_scores.data(), T);
        for (int64_t i = 0; i < Tq; ++i) {
          float* g = grad_scores.data() + i * T;
          if (p > 0) apply_dropout_mask(g, g, (head * Tq + i) * T, T, seed, threshold, keep_scale);
          softmax_backward_row(y + i * T, g, g, T);
        }
        if (want_q) {
          sgemm(Tq, d, T, scale, plain(grad_scores.data(), T), head_rows(k, b, h),
                grad_q.data_ptr<float>() + b * Tq * H * d + h * d, H * d);
        }
        if (want_k) {
          sgemm(T, d, Tq, scale, plain_transposed(grad_scores.data(), T), head_rows(q, b, h),
                grad_k.data_ptr<float>() + b * T * H * d + h * d, H * d);
        }
      }
    });
    const auto as_heads = [](const torch::Tensor& g) { return g.defined() ? g.permute({0, 2, 1, 3}) : g; };
    return {as_heads(grad_q), as_heads(grad_k), as_heads(grad_v), torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

bool fused_attention_applies(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& mask) {
  if (runtime::autocast_enabled(c10::DeviceType::CPU)) return false;
  for (const auto* t : {&q, &k, &v}) {
    // Unit stride along d and rows at least d apart: the per-head matrices BLAS reads in place.
    if (!t->defined() || !t->device().is_cpu() || t->scalar_type() != torch::kFloat || t->dim() != 4 ||
        t->numel() == 0 || t->stride(3) != 1 || t->stride(2) < t->size(3)) {
      return false;
    }
  }
  if (k.sizes() != v.sizes() || q.size(0) != k.size(0) || q.size(1) != k.size(1) || q.size(3) != k.size(3)) return false;
  // The BLAS's sgemm is looked up at run time (runtime/direct_sgemm.h): an empty product says whether it is there.
  const runtime::SgemmOperand empty{nullptr, 1, 1};
  float none = 0;
  return runtime::direct_sgemm(0, 0, 0, 1.0f, empty, empty, 0.0f, &none, 1) &&
         fused_key_mask_fits(mask, q.size(0), k.size(2));
}

torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& mask, double scale, double p, uint64_t seed) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "fused_attention: p must be in [0, 1), got ", p);
  TORCH_CHECK(fused_attention_applies(q, k, v, mask),
              "fused_attention: needs float32 CPU q (B, H, Tq, d), k and v (B, H, T, d) with unit stride along d, "
              "and an undefined or (B, 1, 1, T) float32 mask without gradient; got q ",
              q.sizes(), ", k ", k.sizes(), ", v ", v.sizes(), " and mask ",
              mask.defined() ? mask.sizes() : c10::IntArrayRef{}, " (check fused_attention_applies first)");
  // As in masked_softmax_dropout: the seed crosses autograd as an int64 bit pattern, "no mask" as an
  // empty tensor.
  return FusedAttention::apply(q, k, v, mask.defined() ? mask : torch::empty({0}), scale, p,
                               static_cast<int64_t>(seed));
}

}  // namespace capaboost
