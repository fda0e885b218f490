// The key-value extension point: a tuner on an attention site sees each call's keys, values and mask
// and may add positions (prefix tuning). Checked on RoBERTa's self-attention against attention
// computed by hand over the concatenated keys and values.

#include "sites/attention_site.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "lib/train/tiny_classifier.h"
#include "measure/parameter_count.h"
#include "models/bert_layers.h"
#include "sites/site_registry.h"

using namespace capaboost;
using Catch::Contains;

namespace {

// Prepends `length` learned key and value vectors per head, as prefix tuning does (test-only).
class FixedPrefixImpl : public KeyValueTunerImpl {
 public:
  FixedPrefixImpl(int64_t heads, int64_t size, int64_t length) {
    keys = register_parameter("keys", torch::randn({heads, length, size}));      // (H, l, d)
    values = register_parameter("values", torch::randn({heads, length, size}));  // (H, l, d)
  }
  std::string kind() const override { return "prefix"; }
  TunerParameterCount parameter_count() const override { return {keys.numel() + values.numel(), keys.numel() + values.numel()}; }
  KeyValues extend(KeyValues state) override {
    const int64_t batch = state.keys.size(0), length = keys.size(1);
    const auto expand = [&](const torch::Tensor& prefix) { return prefix.unsqueeze(0).expand({batch, -1, -1, -1}); };
    state.keys = torch::cat({expand(keys), state.keys}, 2);        // (B, H, l + T, d)
    state.values = torch::cat({expand(values), state.values}, 2);  // (B, H, l + T, d)
    if (state.mask.defined()) {
      auto open = torch::zeros({batch, 1, state.mask.size(2), length}, state.mask.options());
      state.mask = torch::cat({open, state.mask}, -1);  // (B, 1, 1, l + T): the prefix is always attended
    }
    return state;
  }
  torch::Tensor keys, values;
};

}  // namespace

TEST_CASE("a key-value tuner's extra positions are attended exactly as concatenated keys and values",
          "[sites][attention_site]") {
  torch::manual_seed(3);
  const auto options = roberta_options().hidden_size(8).num_attention_heads(2).attention_probs_dropout_prob(0.0);
  BertSelfAttention attention(options);
  attention->eval();
  const int64_t heads = 2, size = 4, length = 3, batch = 2, tokens = 5;
  auto prefix = std::make_shared<FixedPrefixImpl>(heads, size, length);
  attention->attach(prefix);

  const auto hidden = torch::randn({batch, tokens, 8});        // (B, T, C)
  auto attention_mask = torch::ones({batch, tokens}, torch::kLong);
  attention_mask[1][4] = 0;                                    // one padded position
  const auto mask = additive_attention_mask(attention_mask, torch::kFloat);  // (B, 1, 1, T)
  torch::NoGradGuard no_grad;
  const auto [context, probs] = attention->forward(hidden, mask);
  CHECK(probs.sizes() == torch::IntArrayRef({batch, heads, tokens, length + tokens}));

  // By hand: per-head projections, prefix prepended, softmax over l + T keys.
  const auto split = [&](const torch::Tensor& x) { return x.view({batch, tokens, heads, size}).permute({0, 2, 1, 3}); };
  const auto q = split(torch::nn::functional::linear(hidden, attention->query->weight, attention->query->bias));
  const auto k = torch::cat({prefix->keys.unsqueeze(0).expand({batch, -1, -1, -1}),
                             split(torch::nn::functional::linear(hidden, attention->key->weight, attention->key->bias))}, 2);
  const auto v = torch::cat({prefix->values.unsqueeze(0).expand({batch, -1, -1, -1}),
                             split(torch::nn::functional::linear(hidden, attention->value->weight, attention->value->bias))}, 2);
  auto scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(size));  // (B, H, T, l + T)
  scores.narrow(-1, length, tokens).add_(mask);
  const auto expected_probs = torch::softmax(scores, -1);
  const auto expected = torch::matmul(expected_probs, v).permute({0, 2, 1, 3}).reshape({batch, tokens, 8});
  CHECK(torch::allclose(probs, expected_probs, 1e-5, 1e-6));
  CHECK(torch::allclose(context, expected, 1e-5, 1e-6));
  // The padded key gets no weight; the prefix positions do, in every row.
  CHECK(probs[1].select(-1, length + 4).abs().max().item<float>() < 1e-6);
  CHECK(probs.narrow(-1, 0, length).sum(-1).min().item<float>() > 0);

  attention->detach();
  const auto [plain, plain_probs] = attention->forward(hidden, mask);
  CHECK(plain_probs.size(-1) == tokens);
}

TEST_CASE("key-value tuners attach by name, train when the backbone is frozen and are counted", "[sites][attention_site]") {
  auto model = testing::tiny_classifier();  // one layer, width 8, two heads
  const auto sites = attach_key_value_tuners(*model, SiteSelector{{"attention.self"}},
                                             [](const std::string&, const AttentionSiteImpl& attention) {
                                               return std::make_shared<FixedPrefixImpl>(attention.num_heads(),
                                                                                        attention.head_size(), 2);
                                             });
  CHECK(sites == std::vector<std::string>{"roberta.encoder.layer.0.attention.self"});
  CHECK(find_attention_sites(*model).size() == 1);
  freeze_backbone(*model, {"classifier."});
  CHECK(model->named_parameters()["roberta.encoder.layer.0.attention.self.prefix.keys"].requires_grad());
  CHECK_FALSE(model->named_parameters()["roberta.encoder.layer.0.attention.self.query.weight"].requires_grad());
  CHECK(count_parameters(*model, {"classifier."}).tuner_dense == 2 * 2 * 2 * 4);  // keys + values, (H, l, d)
  const auto names = tuner_tensor_names(*model);
  CHECK(std::count(names.begin(), names.end(), "roberta.encoder.layer.0.attention.self.prefix.values") == 1);

  // The classifier still runs, over the extended keys.
  const auto logits = model->forward(torch::randint(3, 30, {2, 5}), torch::ones({2, 5}, torch::kLong)).logits;
  CHECK(logits.sizes() == torch::IntArrayRef({2, 2}));
  CHECK_THROWS_WITH(attach_key_value_tuners(*model, SiteSelector{{"no_such_site"}},
                                            [](const std::string&, const AttentionSiteImpl&) -> KeyValueTunerPtr { return nullptr; }),
                    Contains("no attention site matches"));
}
