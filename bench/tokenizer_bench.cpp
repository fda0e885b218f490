// RoBERTa byte-level BPE throughput in sentences/s on the SST-2 training sentences (67,349 short movie
// review phrases), the corpus the GLUE jobs tokenize most. Three cases: a fresh tokenizer whose BPE
// cache starts empty (what one job pays once), a warm cache (every later epoch/evaluation), and warm
// batches of 32 padded into (B, T) tensors (what a data loader does).
// Reads CAPABOOST_DATA_DIR (default <repository>/../shared/data)/SST-2/train.tsv and
// tokenizers/roberta-base/; when they are missing the cases report "skipped: ..." instead of running.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tokenizers/byte_level_bpe_tokenizer.h"

namespace {

namespace fs = std::filesystem;
using capaboost::ByteLevelBpeTokenizer;

fs::path data_dir() {
  const char* value = std::getenv("CAPABOOST_DATA_DIR");
  if (value != nullptr && *value != '\0') return value;
  // The bench target has no CAPABOOST_SOURCE_DIR definition; CMake compiles this file by its absolute path,
  // so the repository root is two levels above __FILE__.
  return fs::path(__FILE__).parent_path().parent_path() / ".." / "shared" / "data";
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

}  // namespace
