#include "data/eval_protocol.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/glue_loader.h"
#include "data/permutation.h"
#include "util/sha256.h"

namespace capaboost {
namespace {

// Bumped whenever the split procedure changes, so old fingerprints stop matching.
constexpr const char* kSplitVersion =
    "capaboost-glue-splits v1; permutation mt19937 fisher-yates (torch.randperm)";

std::vector<Example> pick(const std::vector<Example>& examples, const std::vector<int64_t>& order,
                          size_t begin, size_t end) {
  std::vector<Example> picked;
  picked.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) picked.push_back(examples[static_cast<size_t>(order[i])]);
  return picked;
}

}  // namespace

EvalProtocol parse_eval_protocol(const std::string& name) {
  if (name == "propetl") return EvalProtocol::kProPETL;
  if (name == "adalora") return EvalProtocol::kAdaLoRA;
  TORCH_CHECK(
      false, "unknown evaluation protocol '", name,
      "'; choose propetl (RoBERTa: dev halves / 1,000 train held out) or adalora (DeBERTaV3: dev as test)");
}

std::string to_string(EvalProtocol protocol) {
  return protocol == EvalProtocol::kProPETL ? "propetl" : "adalora";
}

std::vector<std::string> eval_protocol_names() {
  return {to_string(EvalProtocol::kProPETL), to_string(EvalProtocol::kAdaLoRA)};
}

Splits make_glue_splits(const TaskInfo& task, const DataRoot& root, const SplitOptions& options) {
  TORCH_CHECK(options.held_out_eval() > 0, "SplitOptions.held_out_eval must be positive, got ",
              options.held_out_eval());
  TORCH_CHECK(options.max_train_examples() >= 0,
              "SplitOptions.max_train_examples must be >= 0 (0: all), got ", options.max_train_examples());
  require_glue_files(task, root, {GlueFile::kTrain, GlueFile::kDev});
  const GlueFileData train = load_glue_file(task, root, GlueFile::kTrain);
  const GlueFileData dev = load_glue_file(task, root, GlueFile::kDev);
  const std::string train_name = task.folder + "/" + task.file_name(GlueFile::kTrain);
  const std::string dev_name = task.folder + "/" + task.file_name(GlueFile::kDev);

  Splits splits;
  splits.task = task.name;
  splits.protocol = options.protocol();
  splits.seed = options.seed();
  splits.files = {{train_name, train.sha256}, {dev_name, dev.sha256}};
  const size_t n_train = train.examples.size(), n_dev = dev.examples.size();
  bool train_is_permuted = false;

  if (options.protocol() == EvalProtocol::kAdaLoRA) {
    splits.train = train.examples;
    splits.eval = dev.examples;
    splits.test = dev.examples;
    splits.eval_is_test = true;
    splits.description =
        fmt::format("adalora: train = {} ({}); eval = test = {} ({})", train_name, n_train, dev_name, n_dev);
  } else if (task.large) {
    const auto held_out = static_cast<size_t>(options.held_out_eval());
    TORCH_CHECK(n_train > held_out, train_name, " has ", n_train, " examples, too few to hold out ", held_out,
                " as eval under the propetl protocol");
    const auto order = seeded_permutation(static_cast<int64_t>(n_train), options.seed());
    splits.eval = pick(train.examples, order, 0, held_out);
    splits.train = pick(train.examples, order, held_out, n_train);
    splits.test = dev.examples;
    train_is_permuted = true;
    splits.description = fmt::format(
        "propetl: eval = first {} of {} ({}) permuted with seed {}; train = the other {}; test = {} ({})",
        held_out, train_name, n_train, options.seed(), n_train - held_out, dev_name, n_dev);
  } else {
    TORCH_CHECK(n_dev >= 2, dev_name, " has ", n_dev,
                " example(s); the propetl protocol splits it in two halves");
    const auto order = seeded_permutation(static_cast<int64_t>(n_dev), options.seed());
    const size_t half = n_dev / 2;
    splits.train = train.examples;
    splits.eval = pick(dev.examples, order, 0, half);
    splits.test = pick(dev.examples, order, half, n_dev);
    splits.description = fmt::format(
        "propetl: train = {} ({}); eval = first {} of {} ({}) permuted with seed {}; "
        "test = the other {}",
        train_name, n_train, half, dev_name, n_dev, options.seed(), n_dev - half);
  }

  const int64_t limit = options.max_train_examples() > 0 ? options.max_train_examples() : task.train_subset;
  if (limit > 0 && static_cast<size_t>(limit) < splits.train.size()) {
    // A uniform sample is the first `limit` of a permutation; a large task's propetl train split
    // already is one (so SST-2-10k trains on p[1000 .. 11000), as the reference's n_obs does).
    if (train_is_permuted) {
      splits.train.erase(splits.train.begin() + limit, splits.train.end());
    } else {
      const auto order = seeded_permutation(static_cast<int64_t>(splits.train.size()), options.seed());
      splits.train = pick(splits.train, order, 0, static_cast<size_t>(limit));
    }
    splits.description +=
        fmt::format("; train limited to {} examples drawn uniformly with seed {}", limit, options.seed());
  }

  // The fingerprint hashes what determines the splits, not the examples themselves: the exact input
  // bytes (via their digests) and every option of the procedure.
  std::string canonical =
      fmt::format("{}\ntask={}\nprotocol={}\nseed={}\nheld_out_eval={}\ntrain_limit={}\n", kSplitVersion,
                  task.name, to_string(options.protocol()), options.seed(), options.held_out_eval(), limit);
  for (const auto& [name, digest] : splits.files)
    canonical += fmt::format("file {} sha256={}\n", name, digest);
  splits.fingerprint = sha256_hex(canonical);
  return splits;
}

nlohmann::json provenance_json(const Splits& splits) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, digest] : splits.files) files[name] = digest;
  return {{"task", splits.task},
          {"protocol", to_string(splits.protocol)},
          {"split_seed", splits.seed},
          {"train", splits.train.size()},
          {"eval", splits.eval.size()},
          {"test", splits.test.size()},
          {"eval_is_test", splits.eval_is_test},
          {"files", files},
          {"fingerprint", splits.fingerprint},
          {"description", splits.description}};
}

}  // namespace capaboost
