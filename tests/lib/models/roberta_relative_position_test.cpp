// RoBERTa's relative position types ("relative_key", "relative_key_query"), checked against the formula
// of transformers' BertSelfAttention written out as loops, not against the code under test.
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "models/roberta.h"
#include "models/bert_layers.h"
#include "support/tensor_diff.h"

using namespace capaboost;
using Catch::Contains;

using capaboost::testing::max_diff;

namespace {

BertOptions tiny_relative(PositionEmbeddingType type) {
  return roberta_options()
      .vocab_size(40)
      .hidden_size(8)
      .num_hidden_layers(1)
      .num_attention_heads(2)
      .intermediate_size(12)
      .max_position_embeddings(9)
      .hidden_dropout_prob(0.0)
      .attention_probs_dropout_prob(0.0)
      .position_embedding_type(type);
}

// q_l·e(l−r) (+ k_r·e(l−r)) element by element; e(δ) is row δ + M − 1.
torch::Tensor scores_by_loops(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& table,
                              bool with_key) {
  const int64_t max_positions = (table.size(0) + 1) / 2;
  auto out = torch::zeros({q.size(0), q.size(1), q.size(2), k.size(2)}, torch::kDouble);
  for (int64_t b = 0; b < q.size(0); ++b)
    for (int64_t h = 0; h < q.size(1); ++h)
      for (int64_t l = 0; l < q.size(2); ++l)
        for (int64_t r = 0; r < k.size(2); ++r) {
          const auto e = table[l - r + max_positions - 1];
          double value = (q[b][h][l] * e).sum().item<double>();
          if (with_key) value += (k[b][h][r] * e).sum().item<double>();
          out[b][h][l][r] = value;
        }
  return out;
}

}  // namespace

TEST_CASE("relative position scores equal the per-pair formula", "[roberta][relative]") {
  torch::manual_seed(3);
  const auto table = torch::randn({2 * 6 - 1, 4});  // M = 6
  const auto q = torch::randn({2, 3, 5, 4});          // (B, H, Tq, d)
  const auto k = torch::randn({2, 3, 5, 4});          // (B, H, T, d)
  CHECK(max_diff(relative_position_scores(q, k, table, PositionEmbeddingType::kRelativeKey),
                 scores_by_loops(q, k, table, false)) < 1e-5);
  CHECK(max_diff(relative_position_scores(q, k, table, PositionEmbeddingType::kRelativeKeyQuery),
                 scores_by_loops(q, k, table, true)) < 1e-5);
  // First-token mode: the single query sits at position 0.
  const auto first = q.narrow(2, 0, 1);
  CHECK(max_diff(relative_position_scores(first, k, table, PositionEmbeddingType::kRelativeKeyQuery),
                 scores_by_loops(first, k, table, true)) < 1e-5);
  // Six keys need distance 5 = M − 1, the last row; seven need a row the table lacks.
  CHECK_NOTHROW(relative_position_scores(q, torch::randn({2, 3, 6, 4}), table, PositionEmbeddingType::kRelativeKey));
  CHECK_THROWS_WITH(
      relative_position_scores(q, torch::randn({2, 3, 7, 4}), table, PositionEmbeddingType::kRelativeKey),
      Contains("max_position_embeddings is 6") && Contains("truncate to at most 6"));
}

TEST_CASE("relative self-attention is softmax((q kᵀ + relative) / √d) v", "[roberta][relative]") {
  for (const auto type : {PositionEmbeddingType::kRelativeKey, PositionEmbeddingType::kRelativeKeyQuery}) {
    torch::manual_seed(5);
    BertSelfAttention attention(tiny_relative(type));
    attention->eval();
    REQUIRE(!attention->distance_embedding.is_empty());
    CHECK(attention->distance_embedding->weight.sizes() == torch::IntArrayRef({2 * 9 - 1, 4}));
    const auto hidden = torch::randn({2, 6, 8});  // (B, T, C)
    // Key 5 of row 1 is padding.
    const auto mask = additive_attention_mask(torch::tensor({{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 0}}),
                                              torch::kFloat);
    const auto [context, probs] = attention->forward(hidden, mask);

    const auto heads = [](const torch::Tensor& x) { return x.view({2, 6, 2, 4}).permute({0, 2, 1, 3}); };
    const auto q = heads(attention->query->forward(hidden));
    const auto k = heads(attention->key->forward(hidden));
    const auto v = heads(attention->value->forward(hidden));
    const auto relative = scores_by_loops(q, k, attention->distance_embedding->weight,
                                          type == PositionEmbeddingType::kRelativeKeyQuery);
    const auto scores = (torch::matmul(q, k.transpose(-1, -2)).to(torch::kDouble) + relative) / 2.0 +
                        mask.to(torch::kDouble);
    const auto expected_probs = torch::softmax(scores, -1);
    CHECK(max_diff(probs, expected_probs) < 1e-5);
    const auto expected = torch::matmul(expected_probs, v.to(torch::kDouble)).permute({0, 2, 1, 3}).reshape({2, 6, 8});
    CHECK(max_diff(context, expected) < 1e-5);
  }
}

TEST_CASE("relative positions leave the absolute table out and name the distance tables as transformers",
          "[roberta][relative]") {
  torch::manual_seed(7);
  BertModel model(tiny_relative(PositionEmbeddingType::kRelativeKeyQuery));
  model->eval();
  const auto params = model->named_parameters();
  REQUIRE(params.contains("encoder.layer.0.attention.self.distance_embedding.weight"));
  REQUIRE(params.contains("embeddings.position_embeddings.weight"));  // kept, unused, as transformers
  const auto ids = torch::tensor({{0, 5, 6, 7, 2}}, torch::kLong);
  const auto before = model->forward(ids).last_hidden_state;
  {
    torch::NoGradGuard no_grad;
    model->embeddings->position_embeddings->weight.normal_(0.0, 1.0);
  }
  CHECK(max_diff(model->forward(ids).last_hidden_state, before) == 0.0);
  {
    torch::NoGradGuard no_grad;
    params["encoder.layer.0.attention.self.distance_embedding.weight"].normal_(0.0, 1.0);
  }
  // Fresh weights (std 0.02) give small queries, so the change is small but far above rounding (~1e-7).
  CHECK(max_diff(model->forward(ids).last_hidden_state, before) > 1e-5);

  BertModel absolute(tiny_relative(PositionEmbeddingType::kAbsolute));
  CHECK_FALSE(absolute->named_parameters().contains("encoder.layer.0.attention.self.distance_embedding.weight"));
}

TEST_CASE("relative positions accept max_position_embeddings tokens, absolute ones fewer", "[roberta][relative]") {
  const auto relative = tiny_relative(PositionEmbeddingType::kRelativeKey);
  const auto absolute = tiny_relative(PositionEmbeddingType::kAbsolute);
  CHECK(relative.max_length() == 9);
  CHECK(absolute.max_length() == 9 - 1 - 1);  // positions start after pad_token_id + 1
  BertModel model(relative);
  CHECK_NOTHROW(model->forward(torch::full({1, 9}, 5, torch::kLong)));
  CHECK_THROWS_WITH(model->forward(torch::full({1, 10}, 5, torch::kLong)),
                    Contains("max_position_embeddings is 9"));
}

TEST_CASE("first-token mode under relative positions equals the full pass at position 0", "[roberta][relative]") {
  torch::manual_seed(11);
  BertModel model(tiny_relative(PositionEmbeddingType::kRelativeKeyQuery).num_hidden_layers(2));
  model->eval();
  const auto ids = torch::tensor({{0, 5, 6, 7, 2, 1}, {0, 9, 8, 2, 1, 1}}, torch::kLong);
  const auto mask = ids.ne(1).to(torch::kLong);
  const auto full = model->forward(ids, mask).last_hidden_state.select(1, 0);  // (B, C)
  CHECK(max_diff(model->first_token_state(ids, mask), full) < 1e-5);
}
