#pragma once
// Word vectors from co-occurrence statistics: positive PMI over a distance-weighted window, factorised
// by a truncated SVD (Levy, Goldberg & Dagan 2015, "Improving distributional similarity with lessons
// learned from word embeddings"). The backbone builder starts the encoder's word embeddings from these
// before MLM pre-training: on this CPU budget MLM alone does not get past "copy the input, else guess
// the most frequent token", while the factorisation takes under a minute and already puts "good" next
// to "better", "helpful", "wonderful".
//
//   auto vectors = distributional_embeddings(train.ids, tokenizer->vocab_size(), tokenizer->special_ids(),
//                                            DistributionalEmbeddingOptions(128));  // (V, 128)

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace capaboost {

struct DistributionalEmbeddingOptions {
  /* implicit */ DistributionalEmbeddingOptions(int64_t dim) : dim_(dim) {}
  /// Width of the vectors (the encoder's hidden size).
  TORCH_ARG(int64_t, dim);
  /// Context tokens on each side; a pair at distance k counts 1/k (word2vec's dynamic window, in
  /// expectation).
  TORCH_ARG(int64_t, window) = 4;
  /// Exponent α of the smoothed context distribution P_α(c) ∝ count(c)^α; 0.75 as word2vec's negative
  /// sampling, which keeps rare contexts from dominating the PMI.
  TORCH_ARG(double, context_smoothing) = 0.75;
  /// Extra random directions of the randomized SVD and its power iterations (Halko, Martinsson & Tropp
  /// 2011): enough for the leading `dim` singular vectors of a PPMI matrix to converge.
  TORCH_ARG(int64_t, oversampling) = 32;
  TORCH_ARG(int64_t, power_iterations) = 3;
  /// Seeds the random test matrix of the SVD.
  TORCH_ARG(uint64_t, seed) = 2024;

 public:
  /// Every field, for cache keys and records.
  nlohmann::json to_json() const;
};

/// Symmetric co-occurrence counts (V, V) float32 of `ids` read as one stream (row-major): each pair of
/// ordinary tokens at distance k ≤ window adds 1/k to both (a, b) and (b, a). Pairs involving a special
/// id (framing, padding) are skipped.
torch::Tensor cooccurrence_counts(const torch::Tensor& ids, int64_t vocab_size,
                                  const std::vector<int64_t>& special_ids, int64_t window);

/// max(0, log P(w, c) / (P(w) P_α(c))) from `counts` (V, V), with P_α(c) ∝ (Σ_w counts(w, c))^α; 0 where
/// the count is 0. (V, V) float32.
torch::Tensor positive_pmi(const torch::Tensor& counts, double context_smoothing);

/// The leading `rank` singular triplets of `matrix` (m, n) by randomized range finding: U (m, rank),
/// S (rank), descending. Deterministic given `seed`.
std::pair<torch::Tensor, torch::Tensor> truncated_svd(const torch::Tensor& matrix, int64_t rank,
                                                      int64_t oversampling, int64_t power_iterations,
                                                      uint64_t seed);

/// (V, dim) vectors U·√S of the PPMI matrix of `ids`. Rows of special ids and of ids that never occur
/// next to an ordinary token are 0 (callers keep their random initialisation there).
torch::Tensor distributional_embeddings(const torch::Tensor& ids, int64_t vocab_size,
                                        const std::vector<int64_t>& special_ids,
                                        const DistributionalEmbeddingOptions& options);

}  // namespace capaboost
