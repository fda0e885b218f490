#include "models/dropout_residual_layer_norm.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

#include "models/parallel_dropout.h"
#include "models/transformer_blocks.h"

using namespace capaboost;

namespace {

struct Operands {
  torch::Tensor x, residual, weight, bias;
};

Operands operands(std::vector<int64_t> shape, bool weight_grad = true) {
  torch::manual_seed(5);
  const int64_t C = shape.back();
  return {torch::randn(shape).requires_grad_(), torch::randn(shape).requires_grad_(),
          (torch::rand({C}) + 0.5).requires_grad_(weight_grad), (torch::randn({C}) * 0.1).requires_grad_(weight_grad)};
}

// The unfused composition the kernel replaces: ParallelDropout's mask, the add, ATen's LayerNorm.
torch::Tensor unfused(const Operands& o, double p, uint64_t seed, double eps) {
  const auto dropped = p > 0 ? parallel_dropout(o.x, p, seed) : o.x;
  return torch::layer_norm(dropped + o.residual, {o.x.size(-1)}, o.weight, o.bias, eps);
}

// Values and the gradients of all four operands under one random probe, fused against unfused.
void check_against_unfused(const Operands& o, double p, uint64_t seed, double eps) {
  const auto probe = torch::randn(o.x.sizes());
  const auto fused = dropout_residual_layer_norm(o.x, o.residual, p, seed, o.weight, o.bias, eps);
  const auto reference = unfused(o, p, seed, eps);
  CHECK(torch::allclose(fused, reference, 1e-5, 1e-5));
  std::vector<torch::Tensor> inputs{o.x, o.residual};
  if (o.weight.requires_grad()) inputs.insert(inputs.end(), {o.weight, o.bias});
  const auto fused_grads = torch::autograd::grad({fused}, inputs, {probe});
  const auto reference_grads = torch::autograd::grad({reference}, inputs, {probe});
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("gradient of input " << i << " (x, residual, weight, bias)");
    CHECK(torch::allclose(fused_grads[i], reference_grads[i], 1e-4, 1e-4));
  }
}

}  // namespace

TEST_CASE("fused dropout + residual + LayerNorm matches the three operators, values and gradients",
          "[dropout][layer_norm]") {
  SECTION("training: BERT's row width, RoBERTa's eps") { check_against_unfused(operands({3, 37, 384}), 0.1, 1234, 1e-5); }
  SECTION("evaluation (p = 0), BERT's eps") { check_against_unfused(operands({2, 5, 768}), 0.0, 0, 1e-12); }
  SECTION("an odd row width: spans start on odd elements") { check_against_unfused(operands({4, 3, 7}), 0.5, 77, 1e-5); }
  SECTION("a frozen LayerNorm (LoRA's runs): no weight gradients asked") {
    check_against_unfused(operands({2, 9, 64}, /*weight_grad=*/false), 0.1, 9, 1e-5);
  }
}

TEST_CASE("fused dropout + residual + LayerNorm drops exactly ParallelDropout's elements", "[dropout][layer_norm]") {
  // With residual 0 and a large x, a dropped element's row holds an exact 0 before normalisation: the
  // fused sum must keep the same elements as parallel_dropout does, which the gradient of x shows.
  const auto o = operands({2, 4, 32});
  const auto grad_x = torch::autograd::grad(
      {dropout_residual_layer_norm(o.x, o.residual, 0.3, 42, o.weight, o.bias, 1e-5).sum()}, {o.x})[0];
  const auto kept = parallel_dropout(torch::ones({2, 4, 32}), 0.3, 42).ne(0);
  CHECK(torch::equal(grad_x.ne(0), kept));
}

TEST_CASE("ResidualOutput takes the fused path in float32 and draws the seed ParallelDropout would",
          "[dropout][layer_norm]") {
  ResidualOutput block(ResidualOutputOptions(16, 8).dropout(0.2).layer_norm_eps(1e-12));
  block->train();
  const auto x = torch::randn({2, 3, 16});
  const auto residual = torch::randn({2, 3, 8});
  torch::manual_seed(11);
  const auto fused = block->forward(x, residual);
  const auto after_fused = torch::rand({1});
  torch::manual_seed(11);
  const uint64_t seed = next_dropout_seed();
  const auto reference = torch::layer_norm(parallel_dropout(block->dense->forward(x), 0.2, seed) + residual, {8},
                                           block->layer_norm->weight, block->layer_norm->bias, 1e-12);
  CHECK(torch::allclose(fused, reference, 1e-5, 1e-5));
  CHECK(torch::equal(torch::rand({1}), after_fused));  // one draw from the generator, as before
  CHECK_FALSE(dropout_residual_layer_norm_applies(x.to(torch::kDouble), x.to(torch::kDouble),
                                                  block->layer_norm->weight, block->layer_norm->bias));
  CHECK_FALSE(dropout_residual_layer_norm_applies(x, residual, block->layer_norm->weight, block->layer_norm->bias));
}
