// The fine-tuning step at the cpu profile's backbone shape (all-MiniLM-L6-v2: BERT, 6 layers, hidden 384,
// 12 heads, FFN 1536, vocabulary 30522) with random weights: batch 32 (the cpu profile's Table 2 batch)
// × 64 tokens, about the longest sentence (pair) of a batch of GLUE-small dev examples under dynamic
// padding; LoRA r=8 (α=16) on query and value, backbone frozen, pooler and classifier trained.
//
// Arg full_last_layer: 0 is the model's default pass (the last layer runs for [CLS] only); 1 runs every
// layer over every token, the pass whose products bench/step_flops.h counts. bench/ratios.py divides the
// step by its products at BM_SgemmMiniLmShape's rate from the same run (issue #43: ≤ 1.25×).
// Arg batch: 32 is the cpu profile's batch; 16 × 32 = 512 rows is the step of 16 runs trained as one
// forward (what packing runs would do), so 16 × t(32) / t(512) bounds what any packing of runs could
// gain per run on this backbone (docs/performance.md, "Why the suite trains one run at a time").
// With CAPABOOST_PROFILE_DIR set, one more step is written as a LibTorch profiler trace;
// bench/profile_summary.py --step-ms splits it into products, other operators and time between them.

#include <benchmark/benchmark.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "models/bert_for_sequence_classification.h"
#include "peft/lora.h"
#include "runtime/caching_cpu_allocator.h"
#include "sites/site_registry.h"
#include "step_flops.h"
#include "train/trainable_selection.h"

namespace {

using namespace capaboost;

constexpr int64_t kTokens = 64;

BertOptions minilm_shape() {
  return bert_options().hidden_size(384).num_hidden_layers(6).num_attention_heads(12).intermediate_size(1536);
}

void BM_MiniLmLoraStep(benchmark::State& state) {
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) runtime::enable_caching_cpu_allocator();
  torch::manual_seed(0);
  const bool full_last_layer = state.range(0) != 0;
  const int64_t batch = state.range(1);
  const bool fused_attention = state.range(2) != 0;
  BertForSequenceClassification model(minilm_shape().num_labels(2));
  attach_tuners(*model, SiteSelector{{"query", "value"}}, [](const std::string& site, const TunableLinearImpl& layer) {
    return std::make_shared<LoraImpl>(LoraOptions(8).alpha(16), site, layer.options.in_features(),
                                      layer.options.out_features());
  });
  freeze_backbone(*model, model->head_prefixes());
  auto input_ids = torch::randint(1000, model->options.vocab_size(), {batch, kTokens}, torch::kLong);  // (B, T)
  input_ids.select(1, 0).fill_(101);   // [CLS]
  input_ids.select(1, -1).fill_(102);  // [SEP]
  const auto attention_mask = torch::ones({batch, kTokens}, torch::kLong);  // (B, T)
  const auto token_type_ids = torch::zeros({batch, kTokens}, torch::kLong);  // (B, T)
  const auto labels = torch::randint(0, 2, {batch}, torch::kLong);         // (B)
  // Asking for hidden states is what makes the classifier run the full last layer; asking for attentions
  // is what keeps the encoder on the unfused attention (models/fused_attention.h), to time both in one run.
  const auto outputs = BertForwardOptions().output_hidden_states(full_last_layer).output_attentions(!fused_attention);
  model->train();
  std::vector<torch::Tensor> trainable;
  for (const auto& p : model->parameters()) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  torch::optim::AdamW optimizer(trainable, torch::optim::AdamWOptions(1e-4).weight_decay(0.1));
  const auto step = [&] {
    auto logits = model->forward(input_ids, attention_mask, token_type_ids, outputs).logits;  // (B, 2)
    model->loss(logits, labels).backward();
    optimizer.step();
    optimizer.zero_grad();
  };
  step();  // warm-up: allocator and oneDNN primitive caches
  if (const char* dir = std::getenv("CAPABOOST_PROFILE_DIR"); dir != nullptr && batch == 32) {
    torch::autograd::profiler::RecordProfile profile(std::string(dir) + "/minilm_lora_step_full" +
                                                     std::to_string(state.range(0)) + "_fused" +
                                                     std::to_string(state.range(2)) + ".json");
    step();
  }
  for (auto _ : state) step();
  if (full_last_layer) state.counters["step_GFLOP"] = bench::frozen_backbone_step_gflop(*model, model->options, batch, kTokens);
  state.SetItemsProcessed(state.iterations() * batch * kTokens);
}
BENCHMARK(BM_MiniLmLoraStep)
    ->ArgsProduct({{0, 1}, {32}, {1}})
    ->Args({1, 32, 0})  // unfused attention needs the full last layer: first-token mode returns no attentions
    ->Args({0, 512, 1})
    ->ArgNames({"full_last_layer", "batch", "fused_attention"})
    ->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
