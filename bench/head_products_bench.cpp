// Attention's per-head products, as the model computes them (models/batched_matmul.h): hundreds of small
// matrices read in place through strided head views. At MiniLM's shape (32 × 12 heads × 64 tokens, heads
// 32 wide) they ran at ~76 GFLOP/s in the step's trace against the 185 of the FFN's product
// (docs/performance.md, issue #43): is another path faster at that width?
// Arg impl (last): 0 oneDNN's batched matmul over the whole batch (what batched_matmul runs), 1 the loaded BLAS's
// sgemm per matrix (batched_matmul_blas: its fallback), the batch split over torch's threads.
// Arg model: 0 MiniLM (B 32, T 64, d 32), 1 RoBERTa-base (B 16, T 128, d 64). Arg product, each operand
// laid out as in the step (heads are strided views, p and dS contiguous (T, T) per matrix): 0 scores
// q · kᵀ (also the probabilities' gradient dO · vᵀ), 1 context p · v (also the query's gradient dS · k),
// 2 the value's gradient pᵀ · dO, 3 the key's gradient qᵀ · dS (kᵀ's, as BatchedMatmul computes it).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <array>

#include "models/batched_matmul.h"
#include "runtime/onednn_matmul.h"

namespace {

struct HeadShape {
  int64_t batch, tokens, heads, width;
};
constexpr std::array<HeadShape, 2> kHeadShapes{{{32, 64, 12, 32}, {16, 128, 12, 64}}};

// (B, T, H·d) projection → (B, H, T, d) heads, a strided view as the model splits them.
torch::Tensor heads(const torch::Tensor& projection, const HeadShape& s) {
  return projection.view({s.batch, s.tokens, s.heads, s.width}).permute({0, 2, 1, 3});
}

void BM_HeadProduct(benchmark::State& state) {
  torch::NoGradGuard no_grad;
  const auto& s = kHeadShapes.at(static_cast<size_t>(state.range(0)));
  const int64_t product = state.range(1);
  const int64_t width = s.heads * s.width;
  const auto q = heads(torch::randn({s.batch, s.tokens, width}), s);  // (B, H, T, d)
  const auto k = heads(torch::randn({s.batch, s.tokens, width}), s);  // (B, H, T, d)
  const auto p = torch::rand({s.batch, s.heads, s.tokens, s.tokens});  // (B, H, T, T)
  torch::Tensor a, b;
  if (product == 0) {
    a = q, b = k.transpose(-1, -2);  // scores: (T, d) · (d, T)
  } else if (product == 1) {
    a = p, b = k;  // context: (T, T) · (T, d)
  } else if (product == 2) {
    a = p.transpose(-1, -2), b = q;  // value gradient: pᵀ (T, T) · dO (T, d)
  } else {
    a = q.transpose(-1, -2), b = p;  // kᵀ's gradient: qᵀ (d, T) · dS (T, T)
  }
  auto out = torch::empty({s.batch, s.heads, a.size(2), b.size(3)});
  for (auto _ : state) {
    const bool ok = state.range(2) == 0 ? capaboost::runtime::onednn_batched_matmul(a, b, out, 1.0)
                                        : capaboost::batched_matmul_blas(a, b, out, 1.0);
    if (!ok) {
      state.SkipWithError("the path refused the layout");
      return;
    }
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.counters["GFLOP"] =
      benchmark::Counter(2.0 * s.batch * s.heads * a.size(2) * a.size(3) * b.size(3) / 1e9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
// impl last: its two values run one after the other for each product.
BENCHMARK(BM_HeadProduct)->ArgsProduct({{0, 1}, {0, 1, 2, 3}, {0, 1}})->ArgNames({"model", "product", "impl"})->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
