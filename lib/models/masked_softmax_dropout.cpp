#include "models/masked_softmax_dropout.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <vector>

#include "models/dropout_mask.h"
#include "models/parallel_dropout.h"
#include "models/softmax_rows.h"
#include "runtime/autocast_compat.h"

namespace capaboost {
namespace {

class MaskedSoftmaxDropout : public torch::autograd::Function<MaskedSoftmaxDropout> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& scores,
                               const torch::Tensor& mask, double p, int64_t seed) {
    RECORD_FUNCTION("capaboost::masked_softmax_dropout", std::vector<c10::IValue>());
    const auto x = scores.contiguous();                                 // (B, H, Tq, T)
    const auto m = mask.numel() > 0 ? mask.contiguous() : torch::Tensor();  // (B, 1, 1, T) or none
    const int64_t L = x.size(3), N = x.numel() / L, rows_per_batch = x.size(1) * x.size(2);
    auto probs = torch::empty_like(x);  // softmax, kept for backward
    auto out = p > 0 ? torch::empty_like(x) : probs;
    const float* xp = x.data_ptr<float>();
    const float* mp = m.defined() ? m.data_ptr<float>() : nullptr;
    float* yp = probs.data_ptr<float>();
    float* op = out.data_ptr<float>();
    const uint64_t threshold = dropout_threshold(p);
    const auto scale = static_cast<float>(1.0 / (1.0 - p));
    at::parallel_for(0, N, /*grain_size=*/64, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        softmax_row(xp + row * L, mp != nullptr ? mp + (row / rows_per_batch) * L : nullptr, yp + row * L, L);
        if (p > 0) apply_dropout_mask(yp + row * L, op + row * L, row * L, L, static_cast<uint64_t>(seed), threshold, scale);
      }
    });
    ctx->save_for_backward({probs});
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    RECORD_FUNCTION("capaboost::masked_softmax_dropout_backward", std::vector<c10::IValue>());
    const auto probs = ctx->get_saved_variables()[0];  // (B, H, Tq, T)
    const auto grad_out = grads[0].contiguous();
    const double p = ctx->saved_data["p"].toDouble();
    const auto seed = static_cast<uint64_t>(ctx->saved_data["seed"].toInt());
    const int64_t L = probs.size(3), N = probs.numel() / L;
    auto grad_scores = torch::empty_like(grad_out);
    const float* gp = grad_out.data_ptr<float>();
    const float* yp = probs.data_ptr<float>();
    float* sp = grad_scores.data_ptr<float>();
    const uint64_t threshold = dropout_threshold(p);
    const auto scale = static_cast<float>(1.0 / (1.0 - p));
    at::parallel_for(0, N, /*grain_size=*/64, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        // The dropout's backward is its mask again (same seed), then softmax's backward in place.
        if (p > 0) apply_dropout_mask(gp + row * L, sp + row * L, row * L, L, seed, threshold, scale);
        softmax_backward_row(yp + row * L, p > 0 ? sp + row * L : gp + row * L, sp + row * L, L);
      }
    });
    return {grad_scores, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool masked_softmax_dropout_applies(const torch::Tensor& scores, const torch::Tensor& mask) {
  if (runtime::autocast_enabled(c10::DeviceType::CPU) || !scores.defined() || !scores.device().is_cpu() ||
      scores.scalar_type() != torch::kFloat || scores.dim() != 4 || scores.numel() == 0) {
    return false;
  }
  return fused_key_mask_fits(mask, scores.size(0), scores.size(3));
}

bool fused_key_mask_fits(const torch::Tensor& mask, int64_t batch, int64_t keys) {
  if (!mask.defined()) return true;
  return mask.device().is_cpu() && mask.scalar_type() == torch::kFloat && !mask.requires_grad() && mask.dim() == 4 &&
         mask.size(0) == batch && mask.size(1) == 1 && mask.size(2) == 1 && mask.size(3) == keys;
}

torch::Tensor masked_softmax_dropout(const torch::Tensor& scores, const torch::Tensor& mask, double p, uint64_t seed) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "masked_softmax_dropout: p must be in [0, 1), got ", p);
  TORCH_CHECK(masked_softmax_dropout_applies(scores, mask),
              "masked_softmax_dropout: needs float32 CPU scores (B, H, Tq, T) and an undefined or (B, 1, 1, T) "
              "float32 mask without gradient; got scores ",
              scores.sizes(), " and mask ", mask.defined() ? mask.sizes() : c10::IntArrayRef{},
              " (check masked_softmax_dropout_applies first)");
  // The seed travels through autograd's saved data as an int64; the bit pattern is what matters. Autograd
  // functions take no undefined tensors: "no mask" crosses as an empty one.
  return MaskedSoftmaxDropout::apply(scores, mask.defined() ? mask : torch::empty({0}), p, static_cast<int64_t>(seed));
}

AttentionDropout draw_attention_dropout(ParallelDropoutImpl& dropout) {
  if (!dropout.is_training() || dropout.options.p() == 0) return {};
  return {dropout.options.p(), next_dropout_seed()};
}

torch::Tensor attention_probabilities(const torch::Tensor& scores, const torch::Tensor& mask, ParallelDropoutImpl& dropout) {
  if (!masked_softmax_dropout_applies(scores, mask)) {
    return dropout.forward(torch::softmax(mask.defined() ? scores + mask : scores, -1));
  }
  const auto drop = draw_attention_dropout(dropout);
  return masked_softmax_dropout(scores, mask, drop.p, drop.seed);
}

}  // namespace capaboost
