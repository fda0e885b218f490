// RoBERTa-base-shaped fine-tuning cost: random weights (12 layers, hidden 768, 12 heads, FFN 3072,
// vocab 50265), batch 16 × 128 tokens, LoRA r=8 (α=16) on query and value, backbone frozen, the
// classification head trained (as in the paper). bench/roberta_step.py runs the same step in PyTorch
// for the C++/Python ratio.
//
// BM_MethodStep: the same step for each PEFT method at the paper's budgets (ratios to its LoRA case).
//
// BM_RobertaBaseStepCuda: the step on a GPU at issue #44's shape (batch 32 × 128 tokens), LoRA r=8 and
// CapaBoost-LoRA (d=2, density 0.5) on query and value, fp32 and bf16 (CUDA autocast); skipped without
// CUDA. bench/peft_step_cuda.py times transformers + PEFT's step on the same GPU for the ratio.
//
// Arg full_last_layer: 0 is the model's default pass (the last layer computes only the first token,
// all the classification head reads); 1 forces the full last layer, as transformers computes it.
// Arg bf16 (LoRA step): 1 runs the products in bf16 (runtime/precision.h), as `precision: bf16` runs;
// skipped on CPUs without AVX512-BF16 / AMX-BF16.

#include <benchmark/benchmark.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "models/batched_matmul.h"
#include "models/parallel_dropout.h"
#include "models/roberta.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "runtime/caching_cpu_allocator.h"
#include "runtime/precision.h"
#include "step_flops.h"
#include "sites/site_registry.h"
#include "train/optimizer_setup.h"
#include "train/trainable_selection.h"

namespace {

using namespace capaboost;

constexpr int64_t kBatch = 16;
constexpr int64_t kTokens = 128;

struct Workload {
  RobertaForSequenceClassification model{nullptr};
  torch::Tensor input_ids;       // (B, T)
  torch::Tensor attention_mask;  // (B, T)
  torch::Tensor labels;          // (B)
  BertForwardOptions outputs;
};

Workload make_workload(bool full_last_layer, bool fused_attention = true) {
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) runtime::enable_caching_cpu_allocator();
  torch::manual_seed(0);
  Workload w;
  const auto options = roberta_options().num_labels(2);  // roberta-base's shape
  w.model = RobertaForSequenceClassification(options);
  attach_tuners(*w.model, SiteSelector{{"query", "value"}},
                [](const std::string& site, const TunableLinearImpl& layer) {
                  return std::make_shared<LoraImpl>(LoraOptions(8).alpha(16), site,
                                                    layer.options.in_features(),
                                                    layer.options.out_features());
                });
  freeze_backbone(*w.model, {"classifier."});
  w.input_ids = torch::randint(3, options.vocab_size(), {kBatch, kTokens}, torch::kLong);
  w.input_ids.select(1, 0).fill_(0);   // <s>
  w.input_ids.select(1, -1).fill_(2);  // </s>
  w.attention_mask = torch::ones({kBatch, kTokens}, torch::kLong);
  w.labels = torch::randint(0, 2, {kBatch}, torch::kLong);
  // Asking for hidden states is what makes the classifier run the full last layer; asking for attentions
  // is what keeps the encoder on the unfused attention (models/fused_attention.h).
  w.outputs = BertForwardOptions().output_hidden_states(full_last_layer).output_attentions(!fused_attention);
  return w;
}

void BM_RobertaBaseForward(benchmark::State& state) {
  auto w = make_workload(state.range(0) != 0);
  w.model->eval();
  torch::NoGradGuard no_grad;
  w.model->forward(w.input_ids, w.attention_mask, {}, w.outputs);  // warm-up
  for (auto _ : state) {
    auto logits = w.model->forward(w.input_ids, w.attention_mask, {}, w.outputs).logits;
    benchmark::DoNotOptimize(logits.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * kBatch * kTokens);
}
BENCHMARK(BM_RobertaBaseForward)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("full_last_layer")
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_RobertaBaseLoraStep(benchmark::State& state) {
  const auto precision = state.range(1) != 0 ? runtime::Precision::kBf16 : runtime::Precision::kFp32;
  if (precision == runtime::Precision::kBf16 && runtime::cpu_bf16_support().empty()) {
    state.SkipWithError("no AVX512-BF16 or AMX-BF16 on this CPU");
    return;
  }
  auto w = make_workload(state.range(0) != 0, state.range(2) != 0);
  w.model->train();  // dropout 0.1 on, as in fine-tuning
  std::vector<torch::Tensor> trainable;
  for (const auto& p : w.model->parameters()) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  torch::optim::AdamW optimizer(trainable, torch::optim::AdamWOptions(1e-4).weight_decay(0.1));
  const auto step = [&] {
    torch::Tensor loss;
    {
      // As the trainer: products in the run's precision, the loss from fp32 logits, backward outside.
      const runtime::PrecisionScope scope(precision);
      auto logits = w.model->forward(w.input_ids, w.attention_mask, {}, w.outputs).logits.to(torch::kFloat);
      loss = w.model->loss(logits, w.labels);
    }
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
  };
  step();  // warm-up
  // CAPABOOST_PROFILE_DIR: one more step under LibTorch's profiler, written as a Chrome trace per case
  // (bench/profile_summary.py totals it by op): where a step's time goes besides the GEMMs.
  if (const char* dir = std::getenv("CAPABOOST_PROFILE_DIR")) {
    torch::autograd::profiler::RecordProfile profile(std::string(dir) + "/lora_step_full" +
                                                     std::to_string(state.range(0)) + "_bf16" +
                                                     std::to_string(state.range(1)) + "_fused" +
                                                     std::to_string(state.range(2)) + ".json");
    step();
  }
  for (auto _ : state) step();
  state.counters["trainable"] =
      static_cast<double>(std::accumulate(trainable.begin(), trainable.end(), int64_t{0},
                                          [](int64_t n, const torch::Tensor& p) { return n + p.numel(); }));
  if (state.range(0) != 0) // issue #21 asks for a step within 1.1x of its products at the sgemm rate (bench/ratios.py).
    state.counters["step_GFLOP"] = bench::frozen_backbone_step_gflop(*w.model, w.model->options, kBatch, kTokens);
  state.SetItemsProcessed(state.iterations() * kBatch * kTokens);
}
BENCHMARK(BM_RobertaBaseLoraStep)
    ->ArgsProduct({{0, 1}, {0, 1}, {1}})
    ->Args({1, 0, 0})  // unfused attention (fp32; first-token mode returns no attentions)
    ->ArgNames({"full_last_layer", "bf16", "fused_attention"})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The two kernels the model replaces, at RoBERTa-base attention shape.
// impl 0: what transformers' code runs (torch::matmul on head views, torch::dropout); impl 1: ours.
// AttentionScores: q kᵀ/√d alone (backward 0) or forward + backward through a probe (backward 1).
void BM_AttentionScores(benchmark::State& state) {
  torch::manual_seed(0);
  const bool backward = state.range(1) != 0;
  auto q_proj = torch::randn({kBatch, kTokens, 768}).requires_grad_(backward);
  auto k_proj = torch::randn({kBatch, kTokens, 768}).requires_grad_(backward);
  const auto heads = [](const torch::Tensor& x) {
    return x.view({kBatch, kTokens, 12, 64}).permute({0, 2, 1, 3});
  };
  const auto probe = torch::randn({kBatch, 12, kTokens, kTokens});
  for (auto _ : state) {
    auto q = heads(q_proj), k = heads(k_proj);
    auto scores = state.range(0) ? batched_matmul(q, k.transpose(-1, -2), 0.125)
                                 : torch::matmul(q, k.transpose(-1, -2)) * 0.125;  // (B, H, T, T)
    if (!backward) continue;
    (scores * probe).sum().backward();
    q_proj.mutable_grad().reset();
    k_proj.mutable_grad().reset();
  }
}
BENCHMARK(BM_AttentionScores)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->ArgNames({"impl", "backward"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_AttentionDropout(benchmark::State& state) {
  torch::manual_seed(0);
  auto probs = torch::rand({kBatch, 12, kTokens, kTokens}).requires_grad_();
  const auto probe = torch::randn({kBatch, 12, kTokens, kTokens});
  for (auto _ : state) {
    auto dropped = state.range(0) ? parallel_dropout(probs, 0.1, 42) : torch::dropout(probs, 0.1, true);
    dropped.backward(probe);
    probs.mutable_grad().reset();
  }
}
BENCHMARK(BM_AttentionDropout)->Arg(0)->Arg(1)->ArgName("impl")->Unit(benchmark::kMillisecond)->UseRealTime();

// One training step of each method of Table 2 and the regularisation table at the paper's RoBERTa-base
// budgets, through the trainer's own optimizer setup and the method's training hooks (AdaLoRA's
// regulariser and reallocation, AdaMix's second pass, ProPETL's mask learning rate): the measured
// "step time relative to LoRA" of issue #16 is each case over case 0 in one run.
struct MethodCase {
  const char* name;
  const char* method;
  nlohmann::json config;
};

const std::vector<MethodCase>& method_cases() {
  static const std::vector<MethodCase> cases{
      {"LoRA r=32", "lora", {{"rank", 32}, {"alpha_over_rank", 1.5}}},
      {"CapaBoost-LoRA r=32 d=2", "lora", {{"rank", 32}, {"alpha_over_rank", 1.5}, {"branches", 2}}},
      {"Prefix l=64", "prefix", {{"prefix_length", 64}}},
      {"ProPETL-Prefix l=64", "propetl_prefix", {{"prefix_length", 64}}},
      {"ProPETL-LoRA r=32", "propetl_lora", {{"rank", 32}, {"alpha_over_rank", 1.5}}},
      {"AdaLoRA 48->32", "adalora", {{"initial_rank", 48}, {"target_rank", 32}}},
      {"PAdapter bn=64", "adapter", {{"bottleneck", 64}}},
      {"CapaBoost-PAdapter bn=64 d=2", "adapter", {{"bottleneck", 64}, {"branches", 2}}},
      {"ProPETL-PAdapter bn=64", "propetl_adapter", {{"bottleneck", 64}}},
      {"AdaMix bn=8", "adamix", {{"bottleneck", 8}, {"activation", "gelu"}}},
  };
  return cases;
}

void BM_MethodStep(benchmark::State& state) {
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) runtime::enable_caching_cpu_allocator();
  const MethodCase& method_case = method_cases().at(static_cast<size_t>(state.range(0)));
  state.SetLabel(method_case.name);
  torch::manual_seed(0);
  RobertaForSequenceClassification model(roberta_options().num_labels(2));
  const MethodSpec& method = find_method(method_case.method);
  const Parameters config = resolve_or_throw(method.parameters, method_case.config, method_case.method);
  method.attach(*model, config);
  select_trainable_parameters(*model, method.trains_backbone_parameter, model->head_prefixes());
  const TrainingHooksPtr hooks = method.training_hooks ? method.training_hooks(*model, config) : nullptr;
  auto settings = AdamWSettings().lr(1e-4).weight_decay(0.1);
  if (hooks) settings.lr_of([&hooks](const std::string& name) { return hooks->learning_rate_of(name); });
  auto optimizer = make_adamw(*model, settings);

  Batch batch;
  batch.inputs["input_ids"] = torch::randint(3, 50265, {kBatch, kTokens}, torch::kLong);
  batch.inputs["attention_mask"] = torch::ones({kBatch, kTokens}, torch::kLong);
  batch.labels = torch::randint(0, 2, {kBatch}, torch::kLong);
  batch.examples = kBatch;
  model->train();
  int64_t step = 0;
  const auto train_step = [&] {
    optimizer->zero_grad();
    const auto outputs = model->forward_batch(batch);
    auto loss = model->batch_loss(outputs, batch);
    if (hooks) {
      const auto regularizer = hooks->regularization_loss(*model, batch, outputs);
      if (regularizer.defined()) loss = loss + regularizer;
    }
    loss.backward();
    optimizer->step();
    if (hooks) hooks->after_step(++step, 1000);
  };
  train_step();  // warm-up
  for (auto _ : state) train_step();
  state.SetItemsProcessed(state.iterations() * kBatch * kTokens);
}
BENCHMARK(BM_MethodStep)->DenseRange(0, 9)->ArgName("method")->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The GPU step through the method registry, as a `capaboost run --device cuda` trains: the model built on
// the CPU from the seed (weights, masks), moved, AdamW over the trainable parameters. GPU work is
// asynchronous, so each iteration ends with a synchronize and reports its own wall time.
void BM_RobertaBaseStepCuda(benchmark::State& state) {
  if (!torch::cuda::is_available()) {
    state.SkipWithError("no CUDA device (this LibTorch is CPU-only or sees no GPU)");
    return;
  }
  constexpr int64_t kGpuBatch = 32;
  const bool capaboost = state.range(0) != 0;
  const auto precision = state.range(1) != 0 ? runtime::Precision::kBf16 : runtime::Precision::kFp32;
  state.SetLabel(capaboost ? "CapaBoost-LoRA r=8 d=2" : "LoRA r=8");
  const torch::Device device(torch::kCUDA, 0);
  torch::manual_seed(0);
  RobertaForSequenceClassification model(roberta_options().num_labels(2));
  const MethodSpec& lora = find_method("lora");
  nlohmann::json given{{"rank", 8}, {"alpha", 16}};
  if (capaboost) given["branches"] = 2;
  lora.attach(*model, resolve_or_throw(lora.parameters, given, "lora"));
  select_trainable_parameters(*model, lora.trains_backbone_parameter, model->head_prefixes());
  model->to(device);
  auto optimizer = make_adamw(*model, AdamWSettings().lr(1e-4).weight_decay(0.1));
  Batch batch;
  batch.inputs["input_ids"] = torch::randint(3, 50265, {kGpuBatch, kTokens}, torch::kLong).to(device);  // (B, T)
  batch.inputs["attention_mask"] = torch::ones({kGpuBatch, kTokens}, torch::kLong).to(device);          // (B, T)
  batch.labels = torch::randint(0, 2, {kGpuBatch}, torch::kLong).to(device);                             // (B)
  batch.examples = kGpuBatch;
  model->train();
  const auto step = [&] {
    optimizer->zero_grad();
    torch::Tensor loss;
    {
      const runtime::PrecisionScope scope(precision, c10::DeviceType::CUDA);
      loss = model->batch_loss(model->forward_batch(batch).to(torch::kFloat), batch);
    }
    loss.backward();
    optimizer->step();
  };
  for (int i = 0; i < 3; ++i) step();  // warm-up: cuBLAS handles, the caching allocator's blocks
  torch::cuda::synchronize();
  // CAPABOOST_PROFILE_DIR: one more step under LibTorch's profiler (host-side ops: on a GPU whose step
  // is bound by launching them, their count is the cost), totalled by bench/profile_summary.py.
  if (const char* dir = std::getenv("CAPABOOST_PROFILE_DIR")) {
    torch::autograd::profiler::RecordProfile profile(std::string(dir) + "/cuda_step_capaboost" +
                                                     std::to_string(state.range(0)) + "_bf16" +
                                                     std::to_string(state.range(1)) + "_fused" +
                                                     std::to_string(state.range(2)) + ".json");
    step();
    torch::cuda::synchronize();
  }
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    step();
    torch::cuda::synchronize();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations() * kGpuBatch * kTokens);
}
BENCHMARK(BM_RobertaBaseStepCuda)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"capaboost", "bf16"})
    ->Iterations(30)
    ->Repetitions(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
