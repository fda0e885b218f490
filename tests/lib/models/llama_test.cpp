// The Llama family's parts against closed forms and against themselves: RMSNorm and rotary embeddings by
// hand, grouped-query attention against repeated keys (transformers' repeat_kv), causality, padding on
// either side, the key-value cache, config errors and the checkpoint round trip. Parity with
// transformers itself is llama_parity_live_test.cpp.

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "checkpoint/safetensors.h"
#include "lib/models/config_file_support.h"
#include "models/llama_pretrained.h"
#include "sites/site_registry.h"
#include "support/tensor_diff.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::max_diff;

namespace {

LlamaOptions tiny_llama_options() {
  return LlamaOptions()
      .vocab_size(40)
      .hidden_size(24)
      .intermediate_size(40)
      .num_hidden_layers(2)
      .num_attention_heads(6)
      .num_key_value_heads(2)
      .max_position_embeddings(64)
      .pad_token_id(0);
}

/// A model whose parameters are all far from their initialisation (the scales of RMSNorm included).
LlamaForCausalLM tiny_llama_lm(uint64_t seed) {
  torch::manual_seed(seed);
  LlamaForCausalLM lm(tiny_llama_options());
  torch::NoGradGuard no_grad;
  for (auto& parameter : lm->parameters()) parameter.normal_(0.0, 0.3);
  lm->eval();
  return lm;
}

}  // namespace

TEST_CASE("RMSNorm divides by the root mean square and scales", "[models][llama]") {
  RMSNorm norm(RMSNormOptions(2).eps(1e-5));
  torch::NoGradGuard no_grad;
  norm->weight.copy_(torch::tensor({2.0f, -1.0f}));
  const auto y = norm(torch::tensor({{3.0f, 4.0f}}));
  const double rms = std::sqrt((9.0 + 16.0) / 2.0 + 1e-5);
  CHECK(max_diff(y, torch::tensor({{2.0 * 3.0 / rms, -4.0 / rms}})) < 1e-6);
}

TEST_CASE("Rotary embeddings rotate each pair (i, i + d/2) by position × θ^(−2i/d)", "[models][llama]") {
  const double theta = 100.0;
  const auto tables = rotary_tables(torch::tensor({{0, 3}}, torch::kLong), 4, theta, torch::kDouble);
  const auto x = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble).view({1, 1, 1, 4}).expand({1, 1, 2, 4});
  const auto rotated = apply_rotary(x, tables);
  CHECK(max_diff(rotated[0][0][0], x[0][0][0]) < 1e-12);  // position 0: unchanged
  // Position 3: pair (0, 2) turns by 3 rad, pair (1, 3) by 3 / θ^(2/4) = 0.3 rad.
  const double a = 3.0, b = 3.0 / std::pow(theta, 0.5);
  const auto expected = torch::tensor({1 * std::cos(a) - 3 * std::sin(a), 2 * std::cos(b) - 4 * std::sin(b),
                                       3 * std::cos(a) + 1 * std::sin(a), 4 * std::cos(b) + 2 * std::sin(b)},
                                      torch::kDouble);
  // The angles are computed in float32, as transformers computes them, whatever the output dtype.
  CHECK(max_diff(rotated[0][0][1], expected) < 1e-6);
}

TEST_CASE("Grouped-query attention equals attention over repeated key-value heads", "[models][llama]") {
  torch::manual_seed(3);
  const auto options = tiny_llama_options();
  LlamaAttention attention(options);
  torch::NoGradGuard no_grad;
  const int64_t B = 2, T = 5, H = 6, Hkv = 2, d = 4;
  const auto hidden = torch::randn({B, T, 24});
  const auto positions = torch::arange(T).unsqueeze(0).expand({B, T});
  const auto rotary = rotary_tables(positions, d, options.rope_theta(), torch::kFloat);
  const auto mask = causal_attention_mask({}, B, T, T, torch::kFloat, torch::kCPU);
  const auto ours = attention(hidden, rotary, mask);

  // transformers' arrangement: every key-value head repeated for its H / Hkv query heads.
  const auto heads = [&](const torch::Tensor& x, int64_t n) { return x.view({B, T, n, d}).transpose(1, 2); };
  const auto q = apply_rotary(heads(attention->q_proj(hidden), H), rotary);
  const auto k = apply_rotary(heads(attention->k_proj(hidden), Hkv), rotary).repeat_interleave(H / Hkv, 1);
  const auto v = heads(attention->v_proj(hidden), Hkv).repeat_interleave(H / Hkv, 1);
  const auto scores = torch::matmul(q, k.transpose(2, 3)) / std::sqrt(static_cast<double>(d)) + mask;
  const auto context = torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({B, T, H * d});
  CHECK(max_diff(ours, attention->o_proj(context)) < 1e-5);
}

TEST_CASE("A Llama language model is causal, pads on either side and decodes through its cache", "[models][llama]") {
  auto lm = tiny_llama_lm(5);
  torch::NoGradGuard no_grad;
  const auto ids = torch::tensor({{5, 9, 12, 7, 3, 30}}, torch::kLong);
  const auto full = lm->forward(ids);  // (1, 6, 40)

  SECTION("changing later tokens leaves earlier logits as they were") {
    auto changed = ids.clone();
    changed[0][4] = 21;
    changed[0][5] = 22;
    CHECK(max_diff(lm->forward(changed).narrow(1, 0, 4), full.narrow(1, 0, 4)) == 0.0);
  }
  SECTION("a row padded on the left or right gives its real positions' logits") {
    const auto left = torch::tensor({{0, 0, 5, 9, 12, 7, 3, 30}}, torch::kLong);
    const auto left_mask = torch::tensor({{0, 0, 1, 1, 1, 1, 1, 1}}, torch::kLong);
    CHECK(max_diff(lm->forward(left, left_mask).narrow(1, 2, 6), full) < 1e-5);
    const auto right = torch::tensor({{5, 9, 12, 7, 3, 30, 0, 0}}, torch::kLong);
    const auto right_mask = torch::tensor({{1, 1, 1, 1, 1, 1, 0, 0}}, torch::kLong);
    CHECK(max_diff(lm->forward(right, right_mask).narrow(1, 0, 6), full) < 1e-5);
  }
  SECTION("a prompt then one token at a time through the cache gives the full pass's logits") {
    LlamaCache cache;
    auto prompt = lm->forward(ids.narrow(1, 0, 3), {}, {}, &cache);
    CHECK(cache.length() == 3);
    std::vector<torch::Tensor> pieces{prompt};
    for (int64_t t = 3; t < 6; ++t) pieces.push_back(lm->forward(ids.narrow(1, t, 1), {}, {}, &cache));
    CHECK(cache.length() == 6);
    CHECK(max_diff(torch::cat(pieces, 1), full) < 1e-5);
  }
}

TEST_CASE("The causal-LM loss predicts the next token and skips ignored labels", "[models][llama]") {
  const auto logits = torch::randn({1, 3, 4});
  const auto labels = torch::tensor({{int64_t{2}, kIgnoredLabel, int64_t{1}}}, torch::kLong);
  // Position 0 predicts label 1 (ignored), position 1 predicts label 2 = token 1; position 2 predicts nothing.
  const auto expected = -torch::log_softmax(logits[0][1], 0)[1];
  CHECK(max_diff(causal_lm_loss(logits, labels), expected) < 1e-6);
}

TEST_CASE("The sequence classifier reads each row's last real token", "[models][llama]") {
  CHECK(last_real_token(torch::tensor({{1, 1, 0, 0}, {0, 1, 1, 1}, {1, 1, 1, 1}}, torch::kLong), 3, 4)
            .equal(torch::tensor({1, 3, 3}, torch::kLong)));
  torch::manual_seed(8);
  LlamaForSequenceClassification classifier(tiny_llama_options().num_labels(3));
  classifier->eval();
  torch::NoGradGuard no_grad;
  const auto alone = classifier->forward(torch::tensor({{4, 2, 9}}, torch::kLong));
  const auto padded = classifier->forward(torch::tensor({{4, 2, 9, 0}, {0, 4, 2, 9}}, torch::kLong),
                                          torch::tensor({{1, 1, 1, 0}, {0, 1, 1, 1}}, torch::kLong));
  CHECK(max_diff(padded, torch::cat({alone, alone})) < 1e-5);
}

TEST_CASE("The seven projections of every Llama layer are sites named as transformers names them",
          "[models][llama]") {
  LlamaForCausalLM lm(tiny_llama_options());
  const auto sites = find_sites(*lm);
  REQUIRE(sites.size() == 2 * 7);
  const std::vector<std::string> expected{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  for (size_t i = 0; i < 7; ++i) CHECK(sites[i].first.find("model.layers.0.") == 0);
  for (const auto& name : expected) {
    CHECK(std::any_of(sites.begin(), sites.end(),
                      [&](const auto& site) { return SiteSelector{{name}}.matches(site.first); }));
  }
  CHECK(find_attention_sites(*lm).size() == 2);
  CHECK(find_attention_sites(*lm).front().second->num_heads() == 2);  // the key-value heads
}

TEST_CASE("A Llama checkpoint round-trips, its tied output projection not written", "[models][llama]") {
  capaboost::testing::TempDir dir;
  auto lm = tiny_llama_lm(11);
  save_pretrained(*lm, dir.path().string());
  const SafetensorsFile weights((dir.path() / "model.safetensors").string());
  CHECK(!weights.contains("lm_head.weight"));
  CHECK(weights.contains("model.layers.1.mlp.down_proj.weight"));
  auto [loaded, report] = load_llama_for_causal_lm(dir.path().string());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  loaded->eval();
  torch::NoGradGuard no_grad;
  const auto ids = torch::tensor({{3, 1, 4, 1, 5}}, torch::kLong);
  CHECK(max_diff(loaded->forward(ids), lm->forward(ids)) == 0.0);

  // A classifier starts from the language model's checkpoint with a fresh head.
  auto [classifier, classifier_report] = load_llama_for_sequence_classification(dir.path().string(), 3);
  CHECK(classifier_report.missing == std::vector<std::string>{"score.weight"});
}

TEST_CASE("Llama configs that no model can be built from are refused naming the field", "[models][llama]") {
  capaboost::testing::TempDir dir;
  const auto base = nlohmann::json{{"model_type", "llama"}, {"hidden_size", 24},      {"num_attention_heads", 6},
                                   {"num_key_value_heads", 4}, {"vocab_size", 40},     {"intermediate_size", 8},
                                   {"num_hidden_layers", 1}};
  CHECK_THROWS_WITH(load_llama_config(capaboost::testing::write_config(dir, base)),
                    Catch::Contains("num_attention_heads 6 is not a multiple of num_key_value_heads 4"));
  auto scaled = base;
  scaled["num_key_value_heads"] = 2;
  scaled["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2.0}};
  CHECK_THROWS_WITH(load_llama_config(capaboost::testing::write_config(dir, scaled)),
                    Catch::Contains("field 'rope_scaling'"));
  auto bert = base;
  bert["model_type"] = "bert";
  CHECK_THROWS_WITH(load_llama_config(capaboost::testing::write_config(dir, bert)),
                    Catch::Contains("field 'model_type' is 'bert'"));
  auto odd = base;
  odd["num_key_value_heads"] = 2;
  odd["head_dim"] = 3;
  CHECK_THROWS_WITH(load_llama_config(capaboost::testing::write_config(dir, odd)), Catch::Contains("must be even"));
}
