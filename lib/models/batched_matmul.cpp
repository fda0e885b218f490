#include "models/batched_matmul.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include "runtime/autocast_compat.h"
#include "runtime/direct_sgemm.h"
#include "runtime/onednn_matmul.h"

namespace capaboost {
namespace {

// Element offset of matrix `index` of the flattened batch of `t` (…, rows, cols), storage offset included.
int64_t matrix_offset(const torch::Tensor& t, int64_t index) {
  int64_t offset = t.storage_offset();
  for (int64_t d = t.dim() - 3; d >= 0; --d) {
    offset += (index % t.size(d)) * t.stride(d);
    index /= t.size(d);
  }
  return offset;
}

// Matrix `index` of the flattened batch of `t`, as a strided view: no copy.
torch::Tensor matrix_at(const torch::Tensor& t, int64_t index) {
  return t.as_strided({t.size(-2), t.size(-1)}, {t.stride(-2), t.stride(-1)}, matrix_offset(t, index));
}

// float32 straight into BLAS: at attention sizes of GLUE batches (~20×64) ATen's per-call dispatch and
// checks cost more than the product. Returns false when BLAS cannot take the layout.
bool batched_sgemm(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, double alpha,
                   int64_t count) {
  if (a.scalar_type() != torch::kFloat || a.numel() == 0 || b.numel() == 0) return false;
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  // Offsets from matrix_offset include the storage offset, so they count from the storage's start.
  const auto* a_base = static_cast<const float*>(a.storage().data());
  const auto* b_base = static_cast<const float*>(b.storage().data());
  float* out_base = out.data_ptr<float>();
  const auto operand = [](const float* base, const torch::Tensor& t, int64_t index) {
    return runtime::SgemmOperand{base + matrix_offset(t, index), t.stride(-2), t.stride(-1)};
  };
  // The layout is the same for every matrix: probe it once on the first.
  if (!runtime::direct_sgemm(m, n, k, static_cast<float>(alpha), operand(a_base, a, 0), operand(b_base, b, 0),
                             0.0f, out_base, n)) {
    return false;
  }
  at::parallel_for(1, count, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      runtime::direct_sgemm(m, n, k, static_cast<float>(alpha), operand(a_base, a, i), operand(b_base, b, i), 0.0f,
                            out_base + i * m * n, n);
    }
  });
  return true;
}

torch::Tensor batched_gemm(const torch::Tensor& a, const torch::Tensor& b, double alpha) {
  // Named in profiler traces (bench/profile_summary.py --split counts it as a product); free otherwise.
  RECORD_FUNCTION("capaboost::batched_gemm", std::vector<c10::IValue>());
  auto out_shape = a.sizes().vec();
  out_shape.back() = b.size(-1);
  auto out = torch::empty(out_shape, a.options());
  const int64_t count = out.numel() == 0 ? 0 : out.numel() / (out.size(-2) * out.size(-1));
  if (count == 0 || runtime::onednn_batched_matmul(a, b, out, alpha) || batched_sgemm(a, b, out, alpha, count)) {
    return out;
  }
  // Detached views: worker threads run with default (enabled) grad mode, and the out= overload must not
  // see inputs that require grad.
  const auto a_data = a.detach();
  const auto b_data = b.detach();
  at::parallel_for(0, count, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
    // Inside the parallel region ATen and OpenMP BLAS both run single-threaded.
    for (int64_t i = begin; i < end; ++i) {
      auto result = matrix_at(out, i);
      at::addmm_out(result, result, matrix_at(a_data, i), matrix_at(b_data, i), /*beta=*/0, /*alpha=*/alpha);
    }
  });
  return out;
}

class BatchedMatmul : public torch::autograd::Function<BatchedMatmul> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a,
                               const torch::Tensor& b, double alpha) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["alpha"] = alpha;
    return batched_gemm(a, b, alpha);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const auto& grad = grads[0];  // (…, n, m)
    torch::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0))
      grad_a = batched_gemm(grad, saved[1].transpose(-1, -2), alpha);  // (…, n, k)
    if (ctx->needs_input_grad(1))
      grad_b = batched_gemm(saved[0].transpose(-1, -2), grad, alpha);  // (…, k, m)
    return {grad_a, grad_b, torch::Tensor()};
  }
};

}  // namespace

bool batched_matmul_blas(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, double alpha) {
  const int64_t count = out.numel() == 0 ? 0 : out.numel() / (out.size(-2) * out.size(-1));
  return count > 0 && batched_sgemm(a, b, out, alpha, count);
}

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b, double alpha) {
  TORCH_CHECK(a.dim() >= 2 && a.dim() == b.dim(), "batched_matmul: a ", a.sizes(), " and b ", b.sizes(),
              " must have the same number (≥ 2) of dimensions");
  TORCH_CHECK(a.sizes().slice(0, a.dim() - 2) == b.sizes().slice(0, b.dim() - 2),
              "batched_matmul: batch shapes of a ", a.sizes(), " and b ", b.sizes(), " differ");
  TORCH_CHECK(a.size(-1) == b.size(-2), "batched_matmul: a ", a.sizes(), " @ b ", b.sizes(),
              ": inner dimensions differ");
  // Other devices (CUDA) have batched GEMMs of their own; the kernels below read CPU memory.
  if (!a.device().is_cpu()) return alpha == 1.0 ? torch::matmul(a, b) : torch::matmul(a, b) * alpha;
  if (runtime::autocast_enabled(c10::DeviceType::CPU)) {
    // Under CPU autocast (runtime/precision.h) the product runs as autocast runs torch::matmul: both
    // operands in its lower precision, oneDNN's batched GEMM over the whole batch in one call (its bf16
    // kernels are what bf16 runs are for; the per-matrix float32 path above does not apply).
    const auto product = torch::matmul(a, b);  // (…, n, m), autocast's dtype
    return alpha == 1.0 ? product : product * alpha;
  }
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "batched_matmul: dtypes differ (", a.scalar_type(), " vs ",
              b.scalar_type(), ")");
  return BatchedMatmul::apply(a, b, alpha);
}

}  // namespace capaboost
