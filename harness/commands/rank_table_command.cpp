#include <fmt/format.h>
#include <torch/torch.h>

#include <map>
#include <vector>

#include "commands/commands.h"
#include "measure/numerical_rank.h"
#include "peft/lora.h"
#include "runtime/blas_runtime.h"

namespace capaboost::harness {
namespace {

struct Cell {
  int64_t rank = 0;
  double param_factor = 0;  // effective parameters relative to LoRA r=8
};

// One 768×768 site (RoBERTa-base's query) with random nonzero A and B: the rank ΔW can reach.
Cell measure(int64_t d, int64_t r, uint64_t seed, double lora_r8_params) {
  CapaBoostOptions boost;
  boost.branches(d).mask(
      MaskOptions().kind(d == 1 ? MaskKind::kNone : MaskKind::kDiff).density(0.5).seed(seed));
  Lora lora(LoraOptions(r).alpha(1.5 * r).capaboost(boost), "roberta.encoder.layer.0.attention.self.query",
            768, 768);
  torch::NoGradGuard no_grad;
  lora->B.normal_();  // trained B is nonzero; at init it is zero and ΔW has rank 0
  return {numerical_rank(*lora->delta_weight()).rank,
          static_cast<double>(lora->parameter_count().effective) / lora_r8_params};
}

}  // namespace

Command rank_table_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "rank-table", "Rank of dW for LoRA and CapaBoost-LoRA (paper Table 1) on random nonzero factors");
  auto seed = std::make_shared<uint64_t>(42);
  sub->add_option("--seed", *seed, "mask and factor seed");
  return {sub, [seed] {
            torch::manual_seed(*seed);
            const double lora_r8 = 2.0 * 768 * 8;
            const std::vector<int64_t> ranks{8, 16, 32, 64};
            // The paper's Table 1 (ranks after training on CoLA; #Param relative to LoRA r=8).
            const std::map<int64_t, std::vector<std::string>> paper{
                {1, {"8 (1x)", "16 (2x)", "32 (4x)", "64 (8x)"}},
                {2, {"16 (0.75x)", "32 (1.5x)", "64 (3x)", "128 (6x)"}},
                {4, {"32 (0.94x)", "64 (1.9x)", "128 (3.75x)", "256 (7.5x)"}}};
            fmt::print("Rank of dW on a 768x768 site, random nonzero factors, density 0.5, seed {}\n", *seed);
            fmt::print("measured: rank (effective #Param vs LoRA r=8)   paper Table 1 in brackets\n\n");
            fmt::print("{:<22}", "method");
            for (auto r : ranks) fmt::print("{:>28}", fmt::format("r={}", r));
            fmt::print("\n");
            for (int64_t d : {1, 2, 4}) {
              fmt::print("{:<22}", d == 1 ? std::string("LoRA") : fmt::format("CapaBoost-LoRA d={}", d));
              for (size_t i = 0; i < ranks.size(); ++i) {
                const Cell cell = measure(d, ranks[i], *seed, lora_r8);
                fmt::print("{:>28}",
                           fmt::format("{} ({:.3f}x) [{}]", cell.rank, cell.param_factor, paper.at(d)[i]));
              }
              fmt::print("\n");
            }
            return 0;
          }};
}

}  // namespace capaboost::harness
