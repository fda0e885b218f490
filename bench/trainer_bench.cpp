// One fine-tuning epoch of the trainer over the first 1,000 CoLA training sentences, RoBERTa-base
// shape with random weights, LoRA r=8 (α=16) on query and value, batch 16, dynamic padding (the
// trainer's default) — issue #4's speed comparison. bench/trainer_speed.py runs this case and the
// PyTorch loops (pad-to-128 as the reference, and dynamic padding) in one session for the ratios.
//
// The case writes the token ids of its epoch, batch by batch in the trainer's order, to
// $CAPABOOST_BENCH_IDS (default trainer_epoch_ids.txt in the working directory) so that the PyTorch
// loops train on exactly the same batches.

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "data/batching.h"
#include "data/eval_protocol.h"
#include "models/roberta.h"
#include "peft/method_registry.h"
#include "runtime/caching_cpu_allocator.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"
#include "train/tokenized_dataset.h"
#include "train/trainable_selection.h"
#include "train/trainer.h"

namespace {

using namespace capaboost;

constexpr int64_t kSentences = 1000;
constexpr int64_t kBatch = 16;
constexpr uint64_t kSeed = 42;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

void write_epoch_ids(const TokenizedDataset& train, const std::string& path) {
  std::ofstream out(path);
  for (const auto& batch : make_batches(epoch_order(train.size(), kSeed, 0), kBatch)) {
    for (int64_t index : batch) {
      const auto& ids = train.ids(index);
      for (size_t t = 0; t < ids.size(); ++t) out << (t ? " " : "") << ids[t];
      out << "\n";
    }
  }
}

void BM_TrainerEpochCoLA1000(benchmark::State& state) {
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) runtime::enable_caching_cpu_allocator();
  const DataRoot root = resolve_data_root("", std::filesystem::path(CAPABOOST_SOURCE_DIR) / ".." / "shared" / "data");
  const TaskInfo& task = glue_task("CoLA");
  if (!glue_task_available(task, root)) {
    state.SkipWithError(("CoLA not found under " + root.path.string() + "; set CAPABOOST_DATA_DIR").c_str());
    return;
  }
  const Splits splits = make_glue_splits(task, root, SplitOptions().max_train_examples(kSentences));
  const ByteLevelBpeTokenizer tokenizer((root.path / "tokenizers" / "roberta-base").string());
  const auto train = std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(splits.train, tokenizer, task, 128));
  TrainingData data;
  data.train = train;
  // Evaluation is not part of the comparison: a handful of examples keeps it negligible.
  const std::vector<Example> few(splits.eval.begin(), splits.eval.begin() + 8);
  data.eval = data.test = std::make_shared<TokenizedDataset>(TokenizedDataset::tokenize(few, tokenizer, task, 128));
  data.eval_is_test = true;
  write_epoch_ids(*train, env_or("CAPABOOST_BENCH_IDS", "trainer_epoch_ids.txt"));
  const MethodSpec& lora = find_method("lora");
  const Parameters lora_config =
      resolve_or_throw(lora.parameters, {{"targets", {"query", "value"}}, {"rank", 8}, {"alpha", 16}}, "method lora");

  TrainResult result;
  for (auto _ : state) {
    state.PauseTiming();
    torch::manual_seed(kSeed);
    auto model = RobertaForSequenceClassification(roberta_options().num_labels(2));  // roberta-base's shape
    lora.attach(*model, lora_config);
    select_trainable_parameters(*model, lora.trains_backbone_parameter, model->head_prefixes());
    state.ResumeTiming();
    result = train_model(
        *model, data, TrainerOptions().lr(5e-4).epochs(1).batch_size(kBatch).seed(kSeed).measure_ranks(false).progress(false));
  }
  state.counters["train_tokens_per_s"] = result.train_tokens_per_second;
  state.counters["tokens"] = static_cast<double>(train->total_tokens());
  state.counters["steps"] = static_cast<double>(result.steps);
}
BENCHMARK(BM_TrainerEpochCoLA1000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
