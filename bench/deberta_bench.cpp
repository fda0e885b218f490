// DeBERTaV3-base-shaped fine-tuning cost: random weights (12 layers, hidden 768, 12 heads, FFN 3072,
// vocab 128100, 256 relative-position buckets), batch 16 × 128 tokens, LoRA r=8 (α=16) on all six weight
// matrices of every layer (Table 3's placement), backbone frozen, pooler and classifier trained.
// bench/deberta_v2_step.py runs the same step in plain PyTorch for the C++/Python ratio.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <numeric>

#include "models/deberta_v2.h"
#include "peft/lora.h"
#include "runtime/caching_cpu_allocator.h"
#include "sites/site_registry.h"

namespace {

using namespace capaboost;

constexpr int64_t kBatch = 16;
constexpr int64_t kTokens = 128;

struct Workload {
  DebertaV2ForSequenceClassification model{nullptr};
  torch::Tensor input_ids;       // (B, T)
  torch::Tensor attention_mask;  // (B, T)
  torch::Tensor labels;          // (B)
};

Workload make_workload() {
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) runtime::enable_caching_cpu_allocator();
  torch::manual_seed(0);
  Workload w;
  const auto options = DebertaV2Options().num_labels(2);  // deberta-v3-base's shape
  w.model = DebertaV2ForSequenceClassification(options);
  // `output.dense` is both the attention output and the feed-forward output projection.
  attach_tuners(*w.model, SiteSelector{{"query_proj", "key_proj", "value_proj", "output.dense", "intermediate.dense"}},
                [](const std::string& site, const TunableLinearImpl& layer) {
                  return std::make_shared<LoraImpl>(LoraOptions(8).alpha(16), site, layer.options.in_features(),
                                                    layer.options.out_features());
                });
  freeze_backbone(*w.model, w.model->head_prefixes());
  w.input_ids = torch::randint(4, options.vocab_size(), {kBatch, kTokens}, torch::kLong);
  w.input_ids.select(1, 0).fill_(1);   // [CLS]
  w.input_ids.select(1, -1).fill_(2);  // [SEP]
  w.attention_mask = torch::ones({kBatch, kTokens}, torch::kLong);
  w.labels = torch::randint(0, 2, {kBatch}, torch::kLong);
  return w;
}

void BM_DebertaV3BaseForward(benchmark::State& state) {
  auto w = make_workload();
  w.model->eval();
  torch::NoGradGuard no_grad;
  w.model->forward(w.input_ids, w.attention_mask);  // warm-up
  for (auto _ : state) {
    auto logits = w.model->forward(w.input_ids, w.attention_mask).logits;
    benchmark::DoNotOptimize(logits.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * kBatch * kTokens);
}
BENCHMARK(BM_DebertaV3BaseForward)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DebertaV3BaseLoraStep(benchmark::State& state) {
  auto w = make_workload();
  w.model->train();  // dropout 0.1 on, as in fine-tuning
  std::vector<torch::Tensor> trainable;
  for (const auto& p : w.model->parameters()) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  torch::optim::AdamW optimizer(trainable, torch::optim::AdamWOptions(1e-4).weight_decay(0.1));
  const auto step = [&] {
    auto logits = w.model->forward(w.input_ids, w.attention_mask).logits;
    w.model->loss(logits, w.labels).backward();
    optimizer.step();
    optimizer.zero_grad();
  };
  step();  // warm-up
  for (auto _ : state) step();
  state.counters["trainable"] =
      static_cast<double>(std::accumulate(trainable.begin(), trainable.end(), int64_t{0},
                                          [](int64_t n, const torch::Tensor& p) { return n + p.numel(); }));
  state.SetItemsProcessed(state.iterations() * kBatch * kTokens);
}
BENCHMARK(BM_DebertaV3BaseLoraStep)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
