#include "models/fused_attention.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "models/bert_layers.h"
#include "models/parallel_dropout.h"

using namespace capaboost;

namespace {

// Queries, keys and values as a self-attention layer makes them: heads split off (B, T, C) projections
// by view + permute (leaves that take the gradients), and BertModel's additive padding mask, float's
// lowest on the last `padded` positions of every other sequence.
struct HeadOperands {
  torch::Tensor q_proj, k_proj, v_proj;  // (B, Tq, C), (B, T, C), (B, T, C) leaves
  torch::Tensor q, k, v;                 // (B, H, Tq, d), (B, H, T, d) views of them
  torch::Tensor mask;                    // (B, 1, 1, T) or undefined
};

HeadOperands head_operands(int64_t B, int64_t H, int64_t Tq, int64_t T, int64_t d, int64_t padded) {
  torch::manual_seed(7);
  HeadOperands o;
  o.q_proj = torch::randn({B, Tq, H * d}).requires_grad_();
  o.k_proj = torch::randn({B, T, H * d}).requires_grad_();
  o.v_proj = torch::randn({B, T, H * d}).requires_grad_();
  const auto heads = [&](const torch::Tensor& x, int64_t length) { return x.view({B, length, H, d}).permute({0, 2, 1, 3}); };
  o.q = heads(o.q_proj, Tq);
  o.k = heads(o.k_proj, T);
  o.v = heads(o.v_proj, T);
  if (padded >= 0) {
    o.mask = torch::zeros({B, 1, 1, T});
    for (int64_t b = 1; b < B; b += 2) o.mask[b].narrow(-1, T - padded, padded).fill_(std::numeric_limits<float>::lowest());
  }
  return o;
}

// The composition the kernel replaces: ATen's products and softmax, ParallelDropout's mask.
torch::Tensor unfused_attention(const HeadOperands& o, double scale, double p, uint64_t seed) {
  auto scores = torch::matmul(o.q, o.k.transpose(-1, -2)) * scale;  // (B, H, Tq, T)
  if (o.mask.defined()) scores = scores + o.mask;
  auto probs = torch::softmax(scores, -1);
  if (p > 0) probs = parallel_dropout(probs, p, seed);
  return torch::matmul(probs, o.v);  // (B, H, Tq, d)
}

// Values, and the gradients of the three projections under one random probe, fused against unfused.
void check_against_unfused(const HeadOperands& o, double p, uint64_t seed) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(o.q.size(3)));
  const auto fused = fused_attention(o.q, o.k, o.v, o.mask, scale, p, seed);
  const auto reference = unfused_attention(o, scale, p, seed);
  REQUIRE(fused.sizes() == reference.sizes());
  CHECK(torch::allclose(fused, reference, 1e-5, 1e-5));
  // The heads lie side by side in memory: back to (B, Tq, C) is a view.
  CHECK(fused.permute({0, 2, 1, 3}).is_contiguous());
  const auto probe = torch::randn(reference.sizes());
  const auto leaves = std::vector<torch::Tensor>{o.q_proj, o.k_proj, o.v_proj};
  const auto fused_grads = torch::autograd::grad({fused}, leaves, {probe});
  const auto reference_grads = torch::autograd::grad({reference}, leaves, {probe});
  for (size_t i = 0; i < leaves.size(); ++i) {
    INFO("gradient of input " << i);
    CHECK(torch::allclose(fused_grads[i], reference_grads[i], 1e-4, 1e-5));
  }
}

// Whether autograd's graph behind t holds a node whose name contains `name`.
bool graph_has_node(const torch::Tensor& t, const std::string& name) {
  std::vector<torch::autograd::Node*> pending{t.grad_fn().get()};
  std::set<torch::autograd::Node*> seen;
  while (!pending.empty()) {
    auto* node = pending.back();
    pending.pop_back();
    if (node == nullptr || !seen.insert(node).second) continue;
    if (node->name().find(name) != std::string::npos) return true;
    for (const auto& edge : node->next_edges()) pending.push_back(edge.function.get());
  }
  return false;
}

}  // namespace

TEST_CASE("fused attention matches products, softmax and dropout composed, values and gradients",
          "[attention][dropout][softmax]") {
  SECTION("training: MiniLM's heads (32 wide), a padded batch") { check_against_unfused(head_operands(3, 12, 20, 20, 32, 7), 0.1, 1234); }
  SECTION("evaluation (p = 0), no mask") { check_against_unfused(head_operands(2, 2, 9, 9, 16, -1), 0.0, 0); }
  SECTION("odd sizes: dropout spans start on odd elements") { check_against_unfused(head_operands(2, 3, 7, 7, 5, 2), 0.5, 77); }
  SECTION("one query (first_token_only) against many keys") {
    check_against_unfused(head_operands(3, 4, 1, 130, 8, 50), 0.1, 9);
  }
  SECTION("more keys than queries (a prefix tuner's positions)") {
    check_against_unfused(head_operands(2, 2, 6, 11, 4, 3), 0.2, 31);
  }
}

TEST_CASE("fused attention drops exactly masked_softmax_dropout's elements of the probabilities", "[attention][dropout]") {
  // With v the identity (T = d), the context is the dropped probabilities themselves.
  const int64_t B = 2, H = 3, T = 6;
  torch::manual_seed(5);
  const auto q = torch::randn({B, H, T, T}), k = torch::randn({B, H, T, T});
  const auto v = torch::eye(T).expand({B, H, T, T}).contiguous();
  const auto context = fused_attention(q, k, v, torch::Tensor(), 1.0, 0.3, 42);
  const auto kept = parallel_dropout(torch::ones({B, H, T, T}), 0.3, 42).ne(0);
  CHECK(torch::equal(context.ne(0), kept));
}

TEST_CASE("fused attention computes only the gradients asked for", "[attention]") {
  auto o = head_operands(2, 2, 5, 5, 4, 1);
  o.q_proj.requires_grad_(false);
  const auto q = o.q_proj.view({2, 5, 2, 4}).permute({0, 2, 1, 3});
  const auto context = fused_attention(q, o.k, o.v, o.mask, 0.5, 0.1, 3);
  const auto grads = torch::autograd::grad({context.sum()}, {o.k_proj, o.v_proj});
  CHECK(grads[0].defined());
  CHECK(grads[1].defined());
  CHECK(grads[0].abs().sum().item<float>() > 0);
}

TEST_CASE("fused attention declines what it cannot take, with the reason in the error", "[attention]") {
  const auto o = head_operands(2, 2, 4, 4, 4, 1);
  CHECK(fused_attention_applies(o.q, o.k, o.v, o.mask));
  CHECK(fused_attention_applies(o.q, o.k, o.v, torch::Tensor()));
  CHECK_FALSE(fused_attention_applies(o.q.to(torch::kDouble), o.k, o.v, o.mask));
  CHECK_FALSE(fused_attention_applies(o.q.transpose(-1, -2), o.k, o.v, o.mask));       // d not unit-stride
  CHECK_FALSE(fused_attention_applies(o.q, o.k, o.v, torch::zeros({2, 2, 4, 4})));     // a per-head mask
  CHECK_FALSE(fused_attention_applies(o.q, o.k, o.v.narrow(2, 0, 3), o.mask));         // keys ≠ values
  CHECK_THROWS_WITH(fused_attention(o.q, o.k, o.v, torch::zeros({2, 2, 4, 4}), 1.0, 0.1, 1),
                    Catch::Contains("fused_attention_applies"));
}

TEST_CASE("BertEncoder fuses attention only when no attentions are asked for, with the same result",
          "[attention][bert]") {
  // Training mode, dropout everywhere: output_attentions = true takes the unfused path, false the fused
  // kernel. Same seed, so the same dropout masks: the outputs and gradients agree to rounding.
  const auto options = BertOptions().hidden_size(32).num_hidden_layers(2).num_attention_heads(4).intermediate_size(64);
  BertEncoder encoder(options);
  encoder->train();
  torch::manual_seed(11);
  const auto hidden = torch::randn({3, 9, 32}).requires_grad_();
  auto mask = torch::zeros({3, 1, 1, 9});
  mask[1].narrow(-1, 6, 3).fill_(std::numeric_limits<float>::lowest());
  const auto run = [&](bool output_attentions) {
    torch::manual_seed(21);
    auto out = encoder->forward(hidden, mask, /*output_hidden_states=*/false, output_attentions);
    const auto grads = torch::autograd::grad({out.last_hidden_state.pow(2).sum()}, {hidden});
    return std::make_tuple(out, grads[0], torch::rand({1}));
  };
  const auto [unfused, unfused_grad, after_unfused] = run(true);
  const auto [fused, fused_grad, after_fused] = run(false);
  CHECK(unfused.attentions.size() == 2);
  CHECK_FALSE(graph_has_node(unfused.last_hidden_state, "FusedAttention"));
  CHECK(graph_has_node(fused.last_hidden_state, "FusedAttention"));
  CHECK(torch::allclose(fused.last_hidden_state, unfused.last_hidden_state, 1e-5, 1e-5));
  CHECK(torch::allclose(fused_grad, unfused_grad, 1e-4, 1e-5));
  CHECK(torch::equal(after_fused, after_unfused));  // the same number of draws from the generator
}
