#pragma once
// The paper's two GLUE evaluation protocols, as a named option recorded with every run.
//
// `propetl` (RoBERTa runs, following ProPETL's code): with a permutation p of size n drawn from a
//   generator seeded `seed` (42 in the reference, for every run seed; see data/permutation.h):
//   - CoLA, MRPC, STS-B, RTE (small): train = train.tsv; eval = dev[p[0 .. ⌊n/2⌋)], test = dev[p[⌊n/2⌋ ..)].
//   - SST-2, QNLI, QQP, MNLI (large): eval = train[p[0 .. 1000)], train = train[p[1000 ..)],
//     test = dev (MNLI: dev_matched).
//   The best epoch is chosen on eval and reported on test.
// `adalora` (DeBERTaV3 runs, following AdaLoRA): train = train.tsv, test = dev, and eval is the same
//   dev set (the paper skips model selection for these runs).
// A training subset (SST-2-10k, or max_train_examples) keeps the first k of the train split in
// permuted order — for large ProPETL tasks the train split is already permuted, so this is p[1000 ..
// 1000+k) exactly as the reference's `n_obs`; otherwise a fresh permutation of train with `seed`.

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "data/data_root.h"
#include "data/example.h"
#include "data/glue_task.h"

namespace capaboost {

enum class EvalProtocol {
  kProPETL,  ///< "propetl": dev split in half (small tasks) or 1,000 train examples held out (large tasks)
  kAdaLoRA,  ///< "adalora": dev is test (and eval)
};
/// Parses "propetl" or "adalora" (errors name the valid choices).
EvalProtocol parse_eval_protocol(const std::string& name);
std::string to_string(EvalProtocol protocol);
/// "propetl", "adalora": what a spec's `protocol:` may say.
std::vector<std::string> eval_protocol_names();

struct SplitOptions {
  TORCH_ARG(EvalProtocol, protocol) = EvalProtocol::kProPETL;
  /// Seed of the split permutation; the reference uses 42 whatever the run seed.
  TORCH_ARG(uint64_t, seed) = 42;
  /// Large tasks under propetl: how many train examples are held out as eval.
  TORCH_ARG(int64_t, held_out_eval) = 1000;
  /// If > 0, the number of training examples to keep (overrides the task's train_subset); a limit
  /// above the train split's size keeps all of it, as the reference's `n_obs` does.
  TORCH_ARG(int64_t, max_train_examples) = 0;
};

/// Train/eval/test examples of one task under one protocol, with their provenance.
struct Splits {
  std::string task;
  EvalProtocol protocol = EvalProtocol::kProPETL;
  uint64_t seed = 42;
  std::vector<Example> train, eval, test;
  /// True under adalora: eval and test are the same examples (no held-out model selection).
  bool eval_is_test = false;
  /// (file name relative to the data root, SHA-256) of every file the splits were made from.
  std::vector<std::pair<std::string, std::string>> files;
  /// SHA-256 over the files' digests, the protocol, the options and the permutation algorithm: equal
  /// fingerprints mean identical splits.
  std::string fingerprint;
  /// How the splits were made, in one sentence (for logs and run records).
  std::string description;
};

/// Loads `task`'s train and dev files under `root` and splits them per `options`. Throws
/// MissingDataError if the task is absent.
Splits make_glue_splits(const TaskInfo& task, const DataRoot& root, const SplitOptions& options = {});

/// The splits' provenance for a run record: task, protocol, seed, sizes, files, fingerprint,
/// description (no examples).
nlohmann::json provenance_json(const Splits& splits);

}  // namespace capaboost
