#include "pretrain/distributional_embeddings.h"

#include <ATen/CPUGeneratorImpl.h>

#include <catch2/catch.hpp>
#include <cmath>

using namespace capaboost;

namespace {

constexpr int64_t kSpecial = 0;

// A stream of 40k ids from two "topics" of 20 ids each ([1, 21) and [21, 41)): runs of 50 ids drawn from
// one topic, the topic switching at every run, kSpecial between runs. Ids of one topic share contexts.
torch::Tensor two_topic_stream() {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(3);
  std::vector<torch::Tensor> runs;
  for (int64_t run = 0; run < 800; ++run) {
    const int64_t first = run % 2 == 0 ? 1 : 21;
    runs.push_back(torch::randint(first, first + 20, {50}, generator, torch::kInt64));
    runs.push_back(torch::full({1}, kSpecial, torch::kInt64));
  }
  return torch::cat(runs).reshape({-1, 51});
}

double cosine(const torch::Tensor& a, const torch::Tensor& b) {
  return (torch::dot(a, b) / (a.norm() * b.norm())).item<double>();
}

}  // namespace

TEST_CASE("co-occurrence counts weight a pair at distance k by 1/k, both ways, and skip special ids",
          "[pretrain][embeddings]") {
  // 1 2 3 0 1, window 2: (1,2) d1, (2,3) d1, (1,3) d2; pairs with the special 0 skipped; (3,1) at d2
  // straddles the 0 and still counts (the window is over the stream).
  const auto ids = torch::tensor({1, 2, 3, 0, 1}, torch::kInt64);
  const auto counts = cooccurrence_counts(ids, 4, {0}, 2);  // (4, 4)
  auto expected = torch::zeros({4, 4});
  expected[1][2] = 1.0;
  expected[2][3] = 1.0;
  expected[1][3] = 0.5;
  expected[3][1] = 0.5;
  expected = expected + expected.t();
  CHECK(torch::allclose(counts, expected));
}

TEST_CASE("positive PMI matches the closed form and is 0 where nothing co-occurs", "[pretrain][embeddings]") {
  const auto counts = torch::tensor({{0.0, 4.0, 1.0}, {4.0, 0.0, 0.0}, {1.0, 0.0, 2.0}});
  const auto ppmi = positive_pmi(counts, 1.0);
  // Total 12; row sums 5, 4, 3 = column sums. PMI(0,1) = log(4/12 / (5/12 · 4/12)) = log(12·4/20).
  CHECK(ppmi[0][1].item<double>() == Approx(std::log(48.0 / 20.0)));
  CHECK(ppmi[2][2].item<double>() == Approx(std::log(2.0 * 12.0 / 9.0)));
  // PMI(0,2) = log(12·1/15) < 0: clipped.
  CHECK(ppmi[0][2].item<double>() == 0.0);
  CHECK(ppmi[0][0].item<double>() == 0.0);
  // Smoothing the context distribution changes the column factor only: P_α(c) ∝ colsum^α.
  const auto smoothed = positive_pmi(counts, 0.5);
  const double mass = std::sqrt(5.0) + std::sqrt(4.0) + std::sqrt(3.0);
  CHECK(smoothed[0][1].item<double>() == Approx(std::log((4.0 / 12.0) / (5.0 / 12.0 * (2.0 / mass)))));
}

TEST_CASE("the randomized truncated SVD finds the leading singular triplets", "[pretrain][embeddings]") {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(5);
  // A (300, 200) matrix with a decaying spectrum, like a PPMI matrix.
  const auto a = torch::randn({300, 200}, generator);
  const auto [u_full, s_full, vh_full] = torch::linalg_svd(a, /*full_matrices=*/false);
  const auto decay = torch::pow(0.9, torch::arange(200, torch::kFloat));
  const auto matrix = torch::mm(u_full * (s_full * decay).unsqueeze(0), vh_full);
  const auto [exact_u, exact_s, exact_vh] = torch::linalg_svd(matrix, /*full_matrices=*/false);

  const auto [u, s] = truncated_svd(matrix, 10, 16, 2, 7);
  REQUIRE(u.sizes() == torch::IntArrayRef({300, 10}));
  CHECK(torch::allclose(s, exact_s.slice(0, 0, 10), 1e-3, 1e-3));
  // Singular vectors agree up to sign.
  const auto alignment = (u * exact_u.slice(1, 0, 10)).sum(0).abs();  // (10)
  CHECK(alignment.min().item<double>() > 0.999);
}

TEST_CASE("distributional embeddings put ids of the same topic together", "[pretrain][embeddings]") {
  const auto stream = two_topic_stream();
  const auto vectors = distributional_embeddings(stream, 50, {kSpecial}, DistributionalEmbeddingOptions(8));
  REQUIRE(vectors.sizes() == torch::IntArrayRef({50, 8}));
  // The special id and ids that never occur ([41, 50)) get a zero row.
  CHECK(vectors[kSpecial].abs().sum().item<double>() == 0.0);
  CHECK(vectors.slice(0, 41).abs().sum().item<double>() == 0.0);

  double same = 0.0, across = 0.0;
  int64_t same_pairs = 0, across_pairs = 0;
  for (int64_t i = 1; i < 41; ++i) {
    for (int64_t j = i + 1; j < 41; ++j) {
      const bool together = (i < 21) == (j < 21);
      (together ? same : across) += cosine(vectors[i], vectors[j]);
      ++(together ? same_pairs : across_pairs);
    }
  }
  // Across topics PPMI is ~0 (the pairs are rarer than chance), so the vectors are about orthogonal.
  CHECK(same / same_pairs > 0.5);
  CHECK(std::abs(across / across_pairs) < 0.2);
  // Deterministic from the options' seed.
  CHECK(torch::equal(vectors, distributional_embeddings(stream, 50, {kSpecial}, DistributionalEmbeddingOptions(8))));
}

TEST_CASE("distributional embeddings refuse a vocabulary too large for a dense matrix",
          "[pretrain][embeddings]") {
  const auto ids = torch::zeros({4}, torch::kInt64);
  CHECK_THROWS_WITH(cooccurrence_counts(ids, 100000, {}, 2), Catch::Contains("would not fit"));
  CHECK_THROWS_WITH(cooccurrence_counts(torch::tensor({1, 7}, torch::kInt64), 5, {}, 2),
                    Catch::Contains("must lie in [0, 5)"));
}
