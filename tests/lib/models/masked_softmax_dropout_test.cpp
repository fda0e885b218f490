#include "models/masked_softmax_dropout.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

#include <limits>

#include "models/parallel_dropout.h"

using namespace capaboost;

namespace {

// Attention scores (B, H, Tq, T) and an additive padding mask (B, 1, 1, T) as BertModel builds it: 0 for
// tokens, float's lowest for padding, the last `padded` positions of every other sequence padded.
struct AttentionOperands {
  torch::Tensor scores, mask;
};

AttentionOperands attention_operands(int64_t B, int64_t H, int64_t Tq, int64_t T, int64_t padded) {
  torch::manual_seed(3);
  auto mask = torch::zeros({B, 1, 1, T});
  for (int64_t b = 1; b < B; b += 2) mask[b].narrow(-1, T - padded, padded).fill_(std::numeric_limits<float>::lowest());
  return {(torch::randn({B, H, Tq, T}) * 4).requires_grad_(), mask};
}

// The composition the kernel replaces: the add, ATen's softmax, ParallelDropout's mask.
torch::Tensor unfused_probabilities(const AttentionOperands& o, double p, uint64_t seed) {
  const auto probs = torch::softmax(o.mask.defined() ? o.scores + o.mask : o.scores, -1);
  return p > 0 ? parallel_dropout(probs, p, seed) : probs;
}

// Values and the scores' gradient under one random probe, fused against unfused.
void check_against_unfused(const AttentionOperands& o, double p, uint64_t seed) {
  const auto probe = torch::randn(o.scores.sizes());
  const auto fused = masked_softmax_dropout(o.scores, o.mask, p, seed);
  const auto reference = unfused_probabilities(o, p, seed);
  CHECK(torch::allclose(fused, reference, 1e-6, 1e-6));
  const auto fused_grad = torch::autograd::grad({fused}, {o.scores}, {probe})[0];
  const auto reference_grad = torch::autograd::grad({reference}, {o.scores}, {probe})[0];
  CHECK(torch::allclose(fused_grad, reference_grad, 1e-5, 1e-6));
}

}  // namespace

TEST_CASE("fused mask + softmax + dropout matches the three operators, values and gradients", "[dropout][softmax]") {
  SECTION("training: MiniLM's heads, a padded batch") { check_against_unfused(attention_operands(4, 12, 37, 37, 9), 0.1, 1234); }
  SECTION("evaluation (p = 0)") { check_against_unfused(attention_operands(3, 2, 5, 64, 20), 0.0, 0); }
  SECTION("no mask (ViT)") { check_against_unfused({attention_operands(2, 3, 17, 17, 0).scores, torch::Tensor()}, 0.1, 5); }
  SECTION("odd row lengths: dropout spans start on odd elements, vector loops have tails") {
    check_against_unfused(attention_operands(2, 3, 4, 7, 2), 0.5, 77);
  }
  SECTION("one query (first_token_only) against many keys") { check_against_unfused(attention_operands(3, 4, 1, 130, 50), 0.1, 9); }
}

TEST_CASE("the fused softmax's exponential holds over the range a softmax row meets", "[softmax]") {
  // One row spanning e⁰ down to underflow: every probability within 2e-6 of ATen's (a few ulp of the
  // exponential and the two sums' rounding; a wrong polynomial coefficient is off by far more), none
  // negative, and a position 100 below the maximum (e⁻¹⁰⁰ underflows in float too) exactly 0.
  const auto scores = torch::cat({torch::linspace(-90, 0, 4001), torch::tensor({-100.0f, -1e30f})}).view({1, 1, 1, -1});
  const auto fused = masked_softmax_dropout(scores, torch::Tensor(), 0.0, 0);
  const auto reference = torch::softmax(scores, -1);
  CHECK(torch::allclose(fused, reference, 2e-6, 1e-30));
  CHECK(fused.min().item<float>() >= 0);
  CHECK(fused.flatten()[-2].item<float>() == 0);
  CHECK(fused.flatten()[-1].item<float>() == 0);
}

TEST_CASE("fused mask + softmax + dropout drops exactly ParallelDropout's elements", "[dropout][softmax]") {
  const auto o = attention_operands(2, 3, 5, 11, 3);
  const auto fused = masked_softmax_dropout(o.scores, torch::Tensor(), 0.3, 42);
  const auto kept = parallel_dropout(torch::ones(o.scores.sizes()), 0.3, 42).ne(0);
  CHECK(torch::equal(fused.ne(0), kept));
}

TEST_CASE("attention_probabilities fuses in float32, draws the seed ParallelDropout would, and falls back elsewhere",
          "[dropout][softmax]") {
  const auto o = attention_operands(2, 3, 6, 6, 2);
  ParallelDropout dropout(0.2);
  dropout->train();
  torch::manual_seed(11);
  const auto fused = attention_probabilities(o.scores, o.mask, *dropout);
  const auto after_fused = torch::rand({1});
  torch::manual_seed(11);
  const auto reference = dropout->forward(torch::softmax(o.scores + o.mask, -1));
  CHECK(torch::allclose(fused, reference, 1e-6, 1e-6));
  CHECK(torch::equal(torch::rand({1}), after_fused));  // one draw from the generator, as the module makes

  dropout->eval();  // no draw in evaluation
  torch::manual_seed(11);
  const auto first_draw = torch::rand({1});
  torch::manual_seed(11);
  CHECK(torch::allclose(attention_probabilities(o.scores, o.mask, *dropout), torch::softmax(o.scores + o.mask, -1), 1e-6,
                        1e-6));
  CHECK(torch::equal(torch::rand({1}), first_draw));

  // A mask of another shape (a key-value tuner's), double precision: the three operators.
  const auto wide_mask = torch::zeros({2, 3, 6, 6});
  CHECK_FALSE(masked_softmax_dropout_applies(o.scores, wide_mask));
  CHECK_FALSE(masked_softmax_dropout_applies(o.scores.to(torch::kDouble), torch::Tensor()));
  CHECK(torch::allclose(attention_probabilities(o.scores, wide_mask, *dropout), torch::softmax(o.scores, -1)));
  CHECK_THROWS_WITH(masked_softmax_dropout(o.scores, wide_mask, 0.1, 1),
                    Catch::Contains("masked_softmax_dropout_applies"));
}
