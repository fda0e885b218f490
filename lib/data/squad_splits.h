#pragma once
// Train, eval and test questions of SQuAD under one of two protocols:
//   official:       train = train-v<version>.json; eval = test = the dev file (what the paper and Hugging
//                   Face's run_qa report: the best epoch on dev). Needs the official files
//                   (harness/scripts/fetch_squad.sh).
//   article-split:  the offline mirror has the dev set only, so its articles (questions grouped by
//                   title, or by context in a file without titles) are permuted with the split seed: the
//                   first half is test, the next tenth (at least one) eval, the rest train. No article is
//                   in two splits, so no context is seen in training and again at test time.
// A training limit keeps the first k training questions of a seeded permutation.

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "data/data_root.h"
#include "data/squad_dataset.h"

namespace capaboost {

enum class SquadProtocol { kOfficial, kArticleSplit };
/// "official" / "article-split".
std::string to_string(SquadProtocol protocol);
SquadProtocol parse_squad_protocol(const std::string& name);
extern const std::vector<std::string> squad_protocol_names;

struct SquadSplitOptions {
  TORCH_ARG(SquadProtocol, protocol) = SquadProtocol::kArticleSplit;
  /// 1 (SQuAD v1.1) or 2 (v2.0): which official files the official protocol reads.
  TORCH_ARG(int, version) = 1;
  /// The file article-split divides, under <root>/SQuAD/ (the mirror's dev-v1.1.json by default).
  TORCH_ARG(std::string, split_file) = "dev-v1.1.json";
  TORCH_ARG(uint64_t, seed) = 42;
  /// Use at most this many training questions (0: all).
  TORCH_ARG(int64_t, train_limit) = 0;
};

struct SquadSplits {
  SquadDataset train, eval, test;
  bool eval_is_test = false;
  /// (file name relative to the data root, SHA-256) of every file read.
  std::vector<std::pair<std::string, std::string>> files;
  /// SHA-256 over the file digests and every option: equal fingerprints mean identical splits.
  std::string fingerprint;
  std::string description;  ///< how the splits were made, in one sentence
};

/// The files `options` reads, relative to the data root.
std::vector<std::string> squad_files(const SquadSplitOptions& options);

/// Throws one MissingDataError naming the absent files and the download step.
void require_squad_files(const DataRoot& root, const SquadSplitOptions& options);

SquadSplits make_squad_splits(const DataRoot& root, const SquadSplitOptions& options);

/// For a run record: protocol, seed, question counts, files, fingerprint, description.
nlohmann::json provenance_json(const SquadSplits& splits);

}  // namespace capaboost
