// Dequantising GGUF blocks (checkpoint/gguf_dequantize.h) at SmolLM2-135M's shapes: what a frozen 4-bit
// base pays per product (one Q4_1 projection, 576 × 1536: ffn_down) and what loading pays once (the Q8_0
// token embedding, 49152 × 576), each against a plain float32 copy of the same output size into the same
// buffer (the least any dequantiser writing float32 costs). The blocks are random: scales and values do
// not change the work.
//
// Args: matrix 0 Q4_1 576 × 1536, 1 Q8_0 49152 × 576; threads 1, or 2 (torch's intra-op threads; the rows
// are split between them); blocks 1 dequantise the blocks, 0 copy float32. bench/ratios.py prints each
// dequantisation against its copy.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <array>

#include "checkpoint/gguf_dequantize.h"

namespace {

using capaboost::GgmlType;

struct DequantizeCase {
  GgmlType type;
  int64_t rows;
  int64_t columns;
};
constexpr std::array<DequantizeCase, 2> kDequantizeCases{{{GgmlType::kQ4_1, 576, 1536}, {GgmlType::kQ8_0, 49152, 576}}};

// Rows of random blocks whose f16 scales (and Q4_1's minimum) are small finite numbers, as a model's are.
torch::Tensor random_blocks(GgmlType type, int64_t rows, int64_t columns) {
  auto blocks = torch::randint(0, 256, {rows, capaboost::ggml_row_bytes(type, columns)}, torch::kUInt8);
  const int64_t block_bytes = capaboost::ggml_type_size(type);
  const int64_t halves = type == GgmlType::kQ4_1 ? 2 : 1;  // Q4_1: scale and minimum; Q8_0: scale
  const auto scales = (torch::rand({rows, columns / 32, halves}) * 0.02 - 0.01).to(torch::kHalf);
  auto by_block = blocks.view({rows, columns / 32, block_bytes});
  by_block.narrow(2, 0, 2 * halves).copy_(scales.view(torch::kUInt8).view({rows, columns / 32, 2 * halves}));
  return blocks;
}

void BM_GgufDequantize(benchmark::State& state) {
  torch::NoGradGuard no_grad;
  const auto& c = kDequantizeCases.at(static_cast<std::size_t>(state.range(0)));
  const int threads_before = torch::get_num_threads();
  torch::set_num_threads(static_cast<int>(state.range(1)));
  const bool blocks = state.range(2) == 1;
  auto out = torch::empty({c.rows, c.columns});
  const auto source = blocks ? random_blocks(c.type, c.rows, c.columns) : torch::randn({c.rows, c.columns});
  for (auto _ : state) {
    if (blocks) {
      capaboost::dequantize_blocks_into(source, c.type, out);
    } else {
      out.copy_(source);
    }
    benchmark::DoNotOptimize(out.data_ptr());
  }
  torch::set_num_threads(threads_before);
  // Float32 written per second: the same for both ways, so the counters compare directly.
  state.counters["out_GB"] = benchmark::Counter(static_cast<double>(out.nbytes()) / 1e9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
// blocks last: its two values run one after the other, so machine drift falls between cases, not between
// a dequantisation and its copy.
BENCHMARK(BM_GgufDequantize)
    ->ArgsProduct({{0, 1}, {1, 2}, {0, 1}})
    ->ArgNames({"matrix", "threads", "blocks"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
