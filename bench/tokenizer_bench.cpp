// Text preparation outside the model, on the mirror's data:
// - RoBERTa byte-level BPE throughput in sentences/s on the SST-2 training sentences (67,349 short movie
//   review phrases), the corpus the GLUE jobs tokenize most. Three cases: a fresh tokenizer whose BPE
//   cache starts empty (what one job pays once), a warm cache (every later epoch/evaluation), and warm
//   batches of 32 padded into (B, T) tensors (what a data loader does).
// - SQuAD: the windows of the v1.1 dev set (10,570 questions, 2,067 contexts; roberta-base's tokenizer
//   with character offsets) and the post-processing of span logits over all of them into answers
//   (n-best 20, at most 30 answer tokens), at run_qa's 384/128 and the mini profile's 128/32: set beside
//   a forward pass over the same windows, it says whether post-processing can dominate an evaluation.
// - SmolLM2's tokenizer (LlamaBpeTokenizer, the GGUF converter's GPT-2 pre-tokenizer) on the 2,067
//   distinct SQuAD v1.1 dev contexts, one thread: ids only (encode: BOS + ids, as HF tokenizer(text)) and
//   with character offsets (what SQuAD features need), with a warm BPE cache and from a fresh tokenizer.
//   bench/llama_tokenizer_hf.py times Hugging Face's fast tokenizer on the same texts for the ratio.
// Reads CAPABOOST_DATA_DIR (default <repository>/../shared/data)/SST-2/train.tsv, SQuAD/dev-v1.1.json
// and tokenizers/roberta-base/, and for SmolLM2 the vocabulary in CAPABOOST_LLAMA_VOCABULARY: a JSON file
// in the "vocabulary" layout of tests/oracle/llama_tokenizer_reference.py (bench/llama_tokenizer_hf.py
// writes one from the GGUF file); when they are missing the cases report "skipped: ..." instead of running.

#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/squad_dataset.h"
#include "data/squad_features.h"
#include "metrics/squad_postprocess.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"
#include "tokenizers/llama_bpe_tokenizer.h"

namespace {

namespace fs = std::filesystem;
using namespace capaboost;

fs::path data_dir() {
  const char* value = std::getenv("CAPABOOST_DATA_DIR");
  if (value != nullptr && *value != '\0') return value;
  // Not __FILE__: with ccache's base_dir it is a relative path.
  return fs::path(CAPABOOST_SOURCE_DIR) / ".." / "shared" / "data";
}

fs::path roberta_dir() { return data_dir() / "tokenizers" / "roberta-base"; }

// The first column of train.tsv after its header line; empty when the file is missing.
const std::vector<std::string>& sst2_sentences() {
  static const std::vector<std::string> sentences = [] {
    std::vector<std::string> out;
    std::ifstream in(data_dir() / "SST-2" / "train.tsv");
    std::string line;
    std::getline(in, line);  // header: sentence<TAB>label
    while (std::getline(in, line)) out.push_back(line.substr(0, line.find('\t')));
    return out;
  }();
  return sentences;
}

bool inputs_present(benchmark::State& state) {
  if (!sst2_sentences().empty() && fs::exists(roberta_dir() / "vocab.json")) return true;
  static const std::string reason = "skipped: needs " + (data_dir() / "SST-2" / "train.tsv").string() +
                                    " and " + (roberta_dir() / "vocab.json").string() +
                                    " (set CAPABOOST_DATA_DIR)";
  state.SkipWithError(reason.c_str());
  return false;
}

void encode_all(const ByteLevelBpeTokenizer& tokenizer, const std::vector<std::string>& sentences) {
  for (const auto& sentence : sentences) {
    auto encoding = tokenizer.encode(sentence);
    benchmark::DoNotOptimize(encoding.input_ids.data());
  }
}

void report_sentences(benchmark::State& state, std::size_t per_iteration) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * per_iteration));
  state.counters["sentences/s"] =
      benchmark::Counter(static_cast<double>(per_iteration), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_RobertaEncodeSst2ColdCache(benchmark::State& state) {
  if (!inputs_present(state)) return;
  const auto& sentences = sst2_sentences();
  for (auto _ : state) {
    state.PauseTiming();  // loading vocab.json/merges.txt is not encoding
    auto tokenizer = std::make_unique<ByteLevelBpeTokenizer>(roberta_dir().string());
    state.ResumeTiming();
    encode_all(*tokenizer, sentences);
  }
  report_sentences(state, sentences.size());
}
BENCHMARK(BM_RobertaEncodeSst2ColdCache)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RobertaEncodeSst2WarmCache(benchmark::State& state) {
  if (!inputs_present(state)) return;
  const auto& sentences = sst2_sentences();
  ByteLevelBpeTokenizer tokenizer(roberta_dir().string());
  encode_all(tokenizer, sentences);
  for (auto _ : state) encode_all(tokenizer, sentences);
  report_sentences(state, sentences.size());
}
BENCHMARK(BM_RobertaEncodeSst2WarmCache)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RobertaEncodeBatchSst2(benchmark::State& state) {
  if (!inputs_present(state)) return;
  const auto& sentences = sst2_sentences();
  const std::size_t batch_size = 32;
  ByteLevelBpeTokenizer tokenizer(roberta_dir().string());
  encode_all(tokenizer, sentences);
  std::vector<std::vector<std::string>> batches;
  for (std::size_t i = 0; i + batch_size <= sentences.size(); i += batch_size) {
    batches.emplace_back(sentences.begin() + static_cast<std::ptrdiff_t>(i),
                         sentences.begin() + static_cast<std::ptrdiff_t>(i + batch_size));
  }
  for (auto _ : state) {
    for (const auto& batch : batches) {
      auto encoded = tokenizer.encode_batch(batch);
      benchmark::DoNotOptimize(encoded.input_ids.data_ptr());
    }
  }
  report_sentences(state, batches.size() * batch_size);
}
BENCHMARK(BM_RobertaEncodeBatchSst2)->Unit(benchmark::kMillisecond)->UseRealTime();

struct DevSet {
  std::unique_ptr<SquadDataset> dataset;
  std::unique_ptr<ByteLevelBpeTokenizer> tokenizer;
};

const DevSet& dev_set() {
  static const DevSet dev = [] {
    DevSet loaded;
    const auto file = data_dir() / "SQuAD" / "dev-v1.1.json";
    const auto vocab = data_dir() / "tokenizers" / "roberta-base";
    if (!fs::exists(file) || !fs::exists(vocab / "vocab.json")) return loaded;
    loaded.dataset = std::make_unique<SquadDataset>(load_squad(file.string()));
    loaded.tokenizer = std::make_unique<ByteLevelBpeTokenizer>(vocab.string());
    return loaded;
  }();
  return dev;
}

bool squad_inputs_present(benchmark::State& state) {
  if (dev_set().dataset) return true;
  state.SkipWithError("skipped: needs SQuAD/dev-v1.1.json and tokenizers/roberta-base/ under CAPABOOST_DATA_DIR");
  return false;
}

// args: max_length, doc_stride
void BM_SquadFeatures(benchmark::State& state) {
  if (!squad_inputs_present(state)) return;
  const auto options = SquadFeatureOptions().max_length(state.range(0)).doc_stride(state.range(1));
  size_t windows = 0;
  for (auto _ : state) {
    const auto features = make_squad_features(dev_set().dataset->questions, *dev_set().tokenizer, options);
    windows = features.size();
    benchmark::DoNotOptimize(features.data());
  }
  state.counters["windows"] = static_cast<double>(windows);
  state.counters["questions/s"] =
      benchmark::Counter(static_cast<double>(dev_set().dataset->questions.size()), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SquadPostprocess(benchmark::State& state) {
  if (!squad_inputs_present(state)) return;
  const auto features = make_squad_features(dev_set().dataset->questions, *dev_set().tokenizer,
                                            SquadFeatureOptions().max_length(state.range(0)).doc_stride(state.range(1)));
  // Random logits: post-processing does the same work whatever the model learned.
  torch::manual_seed(0);
  std::vector<SpanScores> scores;
  for (const auto& feature : features) {
    const auto n = static_cast<int64_t>(feature.input_ids.size());
    const auto start = torch::randn({n}), end = torch::randn({n});
    scores.push_back({std::vector<float>(start.data_ptr<float>(), start.data_ptr<float>() + n),
                      std::vector<float>(end.data_ptr<float>(), end.data_ptr<float>() + n)});
  }
  for (auto _ : state) {
    const auto answers = postprocess_squad(dev_set().dataset->questions, features, scores, SquadPostprocessOptions());
    benchmark::DoNotOptimize(answers.predictions.size());
  }
  state.counters["windows"] = static_cast<double>(features.size());
}

BENCHMARK(BM_SquadFeatures)->Args({384, 128})->Args({128, 32})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_SquadPostprocess)->Args({384, 128})->Args({128, 32})->Unit(benchmark::kMillisecond)->Iterations(2);

// The vocabulary named by CAPABOOST_LLAMA_VOCABULARY, or nullopt when unset or missing.
std::optional<LlamaBpeVocabulary> bench_vocabulary() {
  const char* path = std::getenv("CAPABOOST_LLAMA_VOCABULARY");
  if (path == nullptr || !fs::exists(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  const nlohmann::json json = nlohmann::json::parse(in);
  LlamaBpeVocabulary vocabulary;
  vocabulary.tokens = json["tokens"].get<std::vector<std::string>>();
  vocabulary.merges = json["merges"].get<std::vector<std::string>>();
  vocabulary.token_types = json["token_types"].get<std::vector<int32_t>>();
  for (auto [key, field] : {std::pair{"bos_id", &vocabulary.bos_id}, std::pair{"eos_id", &vocabulary.eos_id},
                            std::pair{"unk_id", &vocabulary.unk_id}, std::pair{"pad_id", &vocabulary.pad_id}}) {
    if (!json[key].is_null()) *field = json[key].get<int64_t>();
  }
  vocabulary.add_bos = json["add_bos"].get<bool>();
  vocabulary.add_eos = json["add_eos"].get<bool>();
  return vocabulary;
}

struct LlamaBenchInputs {
  std::optional<LlamaBpeVocabulary> vocabulary;
  std::vector<std::string> contexts;  // distinct, in file order
};

const LlamaBenchInputs& llama_bench_inputs() {
  static const LlamaBenchInputs inputs = [] {
    LlamaBenchInputs loaded;
    const auto file = data_dir() / "SQuAD" / "dev-v1.1.json";
    loaded.vocabulary = bench_vocabulary();
    if (!loaded.vocabulary || !fs::exists(file)) return loaded;
    for (const SquadQuestion& question : load_squad(file.string()).questions) {
      if (loaded.contexts.empty() || loaded.contexts.back() != question.context) {
        loaded.contexts.push_back(question.context);
      }
    }
    return loaded;
  }();
  return inputs;
}

bool llama_inputs_present(benchmark::State& state) {
  if (!llama_bench_inputs().contexts.empty()) return true;
  state.SkipWithError("skipped: needs CAPABOOST_LLAMA_VOCABULARY (bench/llama_tokenizer_hf.py writes it) and "
                      "SQuAD/dev-v1.1.json under CAPABOOST_DATA_DIR");
  return false;
}

std::unique_ptr<LlamaBpeTokenizer> fresh_llama_tokenizer() {
  return std::make_unique<LlamaBpeTokenizer>(*llama_bench_inputs().vocabulary);
}

void encode_contexts(const LlamaBpeTokenizer& tokenizer, bool with_offsets) {
  for (const auto& context : llama_bench_inputs().contexts) {
    if (with_offsets) {
      auto spans = tokenizer.encode_text_with_offsets(context);
      benchmark::DoNotOptimize(spans.data());
    } else {
      auto encoding = tokenizer.encode(context);
      benchmark::DoNotOptimize(encoding.input_ids.data());
    }
  }
}

void report_contexts(benchmark::State& state) {
  const auto count = static_cast<double>(llama_bench_inputs().contexts.size());
  state.counters["contexts/s"] = benchmark::Counter(count, benchmark::Counter::kIsIterationInvariantRate);
}

// arg: with_offsets
void BM_SmolLm2EncodeSquadContextsWarm(benchmark::State& state) {
  if (!llama_inputs_present(state)) return;
  const auto tokenizer = fresh_llama_tokenizer();
  encode_contexts(*tokenizer, state.range(0) != 0);
  for (auto _ : state) encode_contexts(*tokenizer, state.range(0) != 0);
  report_contexts(state);
}
BENCHMARK(BM_SmolLm2EncodeSquadContextsWarm)
    ->ArgName("with_offsets")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SmolLm2EncodeSquadContextsCold(benchmark::State& state) {
  if (!llama_inputs_present(state)) return;
  for (auto _ : state) {
    state.PauseTiming();  // building the vocabulary and merge tables is not encoding
    const auto tokenizer = fresh_llama_tokenizer();
    state.ResumeTiming();
    encode_contexts(*tokenizer, state.range(0) != 0);
  }
  report_contexts(state);
}
BENCHMARK(BM_SmolLm2EncodeSquadContextsCold)
    ->ArgName("with_offsets")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
