#include "sites/tunable_linear.h"

#include "runtime/autocast_compat.h"
#include "runtime/onednn_matmul.h"

#include <cmath>

namespace capaboost {
namespace {

// a @ b (+ bias) for a (1, n, k), b (1, k, m) → (1, n, m): oneDNN when it takes the layout, else ATen.
torch::Tensor onednn_product(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& bias = {}) {
  auto out = torch::empty({1, a.size(1), b.size(2)}, a.options());  // (1, n, m)
  if (runtime::onednn_batched_matmul(a, b, out, 1.0, bias)) return out;
  return bias.defined() ? torch::baddbmm(bias, a, b) : torch::bmm(a, b);
}

// y = x Wᵀ + b with all three products of the layer on oneDNN's matmul (runtime/onednn_matmul.h):
// forward x · Wᵀ with the bias in the product's epilogue, backward dY · W for the input and, when the
// weight trains, dYᵀ · x. Why: OpenBLAS runs the frozen backbone's products at its reference rate, and
// oneDNN's kernels read both layouts in place at 1.1–1.3× that on the shapes of a MiniLM step
// (bench/skinny_gemm_bench.cpp, BM_FrozenProduct); the products are ~80% of a LoRA step.
class OnednnLinear : public torch::autograd::Function<OnednnLinear> {
 public:
  // x: (…, in), weight: (out, in), bias: (out) or undefined → (…, out)
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const auto rows = x.numel() / weight.size(1);
    const auto x_rows = x.reshape({1, rows, weight.size(1)});  // (1, N, in), a view when x is contiguous
    ctx->save_for_backward({x_rows, weight});
    ctx->saved_data["has_bias"] = bias.defined();
    auto out_shape = x.sizes().vec();
    out_shape.back() = weight.size(0);
    return onednn_product(x_rows, weight.t().unsqueeze(0), bias).view(out_shape);  // (…, out)
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x_rows = saved[0];  // (1, N, in)
    const auto& weight = saved[1];  // (out, in)
    const auto& grad = grads[0];    // (…, out)
    const auto grad_rows = grad.reshape({1, x_rows.size(1), weight.size(0)});  // (1, N, out)
    torch::Tensor grad_x, grad_weight, grad_bias;
    if (ctx->needs_input_grad(0)) {
      auto x_shape = grad.sizes().vec();
      x_shape.back() = weight.size(1);
      grad_x = onednn_product(grad_rows, weight.unsqueeze(0)).view(x_shape);  // (…, in)
    }
    if (ctx->needs_input_grad(1)) grad_weight = onednn_product(grad_rows.transpose(1, 2), x_rows).squeeze(0);
    if (ctx->needs_input_grad(2) && ctx->saved_data["has_bias"].toBool()) grad_bias = grad_rows.sum({0, 1});
    return {grad_x, grad_weight, grad_bias};
  }
};

// Whether this product takes OnednnLinear: fp32 on the CPU, outside autocast, with rows to multiply.
bool onednn_linear_applies(const torch::Tensor& x, const torch::Tensor& weight) {
  return runtime::onednn_linear_enabled() && x.device().is_cpu() && x.scalar_type() == torch::kFloat &&
         weight.scalar_type() == torch::kFloat && x.numel() > 0 && !runtime::autocast_enabled(c10::DeviceType::CPU);
}

}  // namespace

TunableLinearImpl::TunableLinearImpl(const TunableLinearOptions& options_) : options(options_) {
  TORCH_CHECK(options.in_features() > 0 && options.out_features() > 0,
              "TunableLinear: features must be positive, got in=", options.in_features(),
              " out=", options.out_features());
  reset();
}

void TunableLinearImpl::reset() {
  weight = register_parameter("weight", torch::empty({options.out_features(), options.in_features()}));
  bias =
      options.bias() ? register_parameter("bias", torch::empty({options.out_features()})) : torch::Tensor();
  // torch::nn::Linear's initialisation, so a randomly initialised backbone behaves like PyTorch's.
  torch::NoGradGuard no_grad;
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(options.in_features()));
    bias.uniform_(-bound, bound);
  }
}

const torch::Tensor& TunableLinearImpl::product_weight() {
  const auto device = weight.device().type();
  if (!runtime::autocast_enabled(device) || weight.requires_grad() || weight.scalar_type() != torch::kFloat) {
    return weight;
  }
  // A frozen RoBERTa-base backbone is 85M weights: casting them every step is ~10% of a bf16 LoRA step.
  // The version counter catches in-place changes (loading, merge), the impl pointer a replaced tensor.
  const auto dtype = runtime::autocast_dtype(device);
  if (!lowp_weight_.defined() || lowp_weight_.scalar_type() != dtype || lowp_source_ != weight.unsafeGetTensorImpl() ||
      lowp_version_ != static_cast<int64_t>(weight._version())) {
    torch::NoGradGuard no_grad;
    lowp_weight_ = weight.to(dtype);
    lowp_source_ = weight.unsafeGetTensorImpl();
    lowp_version_ = static_cast<int64_t>(weight._version());
  }
  return lowp_weight_;
}

torch::Tensor TunableLinearImpl::forward(const torch::Tensor& x) {
  auto y = onednn_linear_applies(x, weight) ? OnednnLinear::apply(x, weight, bias)
                                            : torch::nn::functional::linear(x, product_weight(), bias);  // (…, out)
  if (tuner_ && !merged_) y = tuner_->adapt(x, y);
  return y;
}

void TunableLinearImpl::attach(SiteTunerPtr tuner) { attach_tuner(*this, tuner_, std::move(tuner), "TunableLinear"); }

void TunableLinearImpl::detach() {
  if (tuner_ && merged_) unmerge();
  detach_tuner(*this, tuner_);
}

void TunableLinearImpl::merge() {
  TORCH_CHECK(tuner_, "TunableLinear::merge: no tuner attached");
  TORCH_CHECK(!merged_, "TunableLinear::merge: already merged");
  auto delta = tuner_->delta_weight();
  TORCH_CHECK(delta.has_value(), "TunableLinear::merge: a '", tuner_->kind(),
              "' tuner is not a linear weight update and cannot be merged");
  torch::NoGradGuard no_grad;
  // Sum in float64, round once: the merged weight is the correctly rounded W + ΔW.
  weight.copy_(weight.to(torch::kFloat64) + *delta);
  merged_ = true;
}

void TunableLinearImpl::unmerge() {
  TORCH_CHECK(merged_, "TunableLinear::unmerge: not merged");
  torch::NoGradGuard no_grad;
  weight.copy_(weight.to(torch::kFloat64) - *tuner_->delta_weight());
  merged_ = false;
}

double TunableLinearImpl::base_flops_per_token() const {
  const double in = options.in_features(), out = options.out_features();
  return 2.0 * in * out + (options.bias() ? out : 0.0);
}

}  // namespace capaboost
