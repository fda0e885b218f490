#include "pretrain/distributional_embeddings.h"

#include <ATen/CPUGeneratorImpl.h>

namespace capaboost {
namespace {

// A dense (V, V) float32 matrix is 4·V² bytes (256 MB at V = 8k); beyond this it stops being cheap.
constexpr int64_t kMaxVocabulary = 32768;

}  // namespace

nlohmann::json DistributionalEmbeddingOptions::to_json() const {
  return {{"method", "ppmi-svd"},
          {"dim", dim()},
          {"window", window()},
          {"context_smoothing", context_smoothing()},
          {"oversampling", oversampling()},
          {"power_iterations", power_iterations()},
          {"seed", seed()}};
}

torch::Tensor cooccurrence_counts(const torch::Tensor& ids, int64_t vocab_size,
                                  const std::vector<int64_t>& special_ids, int64_t window) {
  TORCH_CHECK(ids.scalar_type() == torch::kInt64, "cooccurrence_counts: ids must be int64, got ",
              ids.scalar_type());
  TORCH_CHECK(vocab_size > 0 && vocab_size <= kMaxVocabulary, "cooccurrence_counts: vocab_size ", vocab_size,
              " is outside (0, ", kMaxVocabulary, "]; the dense (V, V) matrix would not fit");
  TORCH_CHECK(window >= 1, "cooccurrence_counts: window must be at least 1, got ", window);
  const auto stream = ids.reshape({-1});  // (N)
  TORCH_CHECK(stream.numel() == 0 || (stream.min().item<int64_t>() >= 0 &&
                                      stream.max().item<int64_t>() < vocab_size),
              "cooccurrence_counts: ids must lie in [0, ", vocab_size, ")");
  const auto ordinary = torch::isin(stream, torch::tensor(special_ids, torch::kInt64)).logical_not();  // (N)
  auto counts = torch::zeros({vocab_size * vocab_size}, torch::kFloat);
  const int64_t n = stream.numel();
  for (int64_t k = 1; k <= window && k < n; ++k) {
    const auto left = stream.slice(0, 0, n - k), right = stream.slice(0, k);  // pairs at distance k
    const auto both = ordinary.slice(0, 0, n - k).logical_and(ordinary.slice(0, k));
    const auto pair = (left * vocab_size + right).masked_select(both);
    // Integer counts per distance, weighted in float: exact, and no (V·V) float64 temporary.
    counts.add_(torch::bincount(pair, {}, vocab_size * vocab_size).to(torch::kFloat), 1.0 / static_cast<double>(k));
  }
  auto matrix = counts.view({vocab_size, vocab_size});  // (V, V): row = left token
  return matrix + matrix.t();
}

torch::Tensor positive_pmi(const torch::Tensor& counts, double context_smoothing) {
  TORCH_CHECK(counts.dim() == 2, "positive_pmi: counts must be (V, V), got ", counts.sizes());
  TORCH_CHECK(context_smoothing > 0.0 && context_smoothing <= 1.0,
              "positive_pmi: context_smoothing must be in (0, 1], got ", context_smoothing);
  const auto c = counts.to(torch::kDouble);
  const auto total = c.sum();
  const auto word = c.sum(1) / total;                  // P(w): (V)
  const auto context_mass = c.sum(0).pow(context_smoothing);
  const auto context = context_mass / context_mass.sum();  // P_α(c): (V)
  auto pmi = torch::log(c / total / (word.unsqueeze(1) * context.unsqueeze(0)));  // (V, V)
  // Zero counts give log 0 = −inf (and 0/0 for unseen words): PPMI is 0 there by definition. In place:
  // at V = 8k every (V, V) float64 temporary is 512 MB.
  return pmi.clamp_min_(0.0).masked_fill_(c <= 0, 0.0).to(torch::kFloat);
}

std::pair<torch::Tensor, torch::Tensor> truncated_svd(const torch::Tensor& matrix, int64_t rank,
                                                      int64_t oversampling, int64_t power_iterations,
                                                      uint64_t seed) {
  TORCH_CHECK(matrix.dim() == 2, "truncated_svd: matrix must be 2-D, got ", matrix.sizes());
  const int64_t sketch = std::min(rank + oversampling, std::min(matrix.size(0), matrix.size(1)));
  TORCH_CHECK(rank >= 1 && rank <= sketch, "truncated_svd: rank ", rank, " must be in [1, ",
              std::min(matrix.size(0), matrix.size(1)), "]");
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  // ATen's linalg_* functions: LibTorch 2.x dropped the torch::linalg namespace of 1.13.
  const auto orthonormal = [](const torch::Tensor& x) { return std::get<0>(torch::linalg_qr(x)); };
  // Range of A·Ω, sharpened by power iterations (AAᵀ)^q, re-orthonormalised at each half step so the
  // small singular directions are not lost to rounding.
  auto q = orthonormal(torch::mm(matrix, torch::randn({matrix.size(1), sketch}, generator, matrix.options())));
  for (int64_t i = 0; i < power_iterations; ++i) {
    q = orthonormal(torch::mm(matrix, orthonormal(torch::mm(matrix.t(), q))));  // (m, sketch)
  }
  // A ≈ Q (Qᵀ A); the SVD of the small (sketch, n) matrix gives A's leading triplets.
  const auto [u_small, s, vh] = torch::linalg_svd(torch::mm(q.t(), matrix), /*full_matrices=*/false);
  return {torch::mm(q, u_small.slice(1, 0, rank)), s.slice(0, 0, rank)};
}

torch::Tensor distributional_embeddings(const torch::Tensor& ids, int64_t vocab_size,
                                        const std::vector<int64_t>& special_ids,
                                        const DistributionalEmbeddingOptions& options) {
  TORCH_CHECK(options.dim() >= 1 && options.dim() < vocab_size, "distributional_embeddings: dim ",
              options.dim(), " must be in [1, vocab_size = ", vocab_size, ")");
  const auto ppmi = positive_pmi(cooccurrence_counts(ids, vocab_size, special_ids, options.window()),
                                 options.context_smoothing());  // (V, V)
  const auto [u, s] =
      truncated_svd(ppmi, options.dim(), options.oversampling(), options.power_iterations(), options.seed());
  // U·√S: the symmetric split of the singular values (Levy et al.'s p = 0.5), better than U·S for
  // similarity. Rows with an all-zero PPMI row (special or unseen ids) come out 0 up to rounding: make
  // them exactly 0 so the caller can tell.
  const auto seen = ppmi.sum(1).gt(0).unsqueeze(1);  // (V, 1); PPMI is non-negative
  return torch::where(seen, u * s.sqrt().unsqueeze(0), torch::zeros_like(u));  // (V, dim)
}

}  // namespace capaboost
