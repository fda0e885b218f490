// SQuAD v1.1 and v2.0 as task plugins: extractive question answering with a span head, features as
// Hugging Face's run_qa.py makes them, answers post-processed as its utils_qa.py does, scored as the
// official evaluation scripts score them. The number Table 4 prints is EM/F1; paper_score is F1 (×100).

#include <fmt/format.h>

#include "data/squad_splits.h"
#include "tasks/epoch_selection.h"
#include "tasks/task_registry.h"
#include "train/squad_split.h"

namespace capaboost {
namespace {

struct SquadVersion {
  const char* name;
  int version;
  const char* split_file;  // what article-split divides by default
};

constexpr SquadVersion kVersions[] = {{"SQuADv1.1", 1, "dev-v1.1.json"}, {"SQuADv2.0", 2, "dev-v2.0.json"}};

ParameterList squad_parameters(const SquadVersion& version) {
  const SquadFeatureOptions features;
  const SquadPostprocessOptions postprocess;
  ParameterList list = {
      ParameterDef::text("protocol",
                         "official (train file; eval = test = dev, as the paper) or article-split (the mirror's dev "
                         "file divided by article into train, eval and test; data/squad_splits.h)")
          .defaults_to("official")
          .one_of([] { return squad_protocol_names; }),
      ParameterDef::text("split_file", "the file under <data root>/SQuAD/ that article-split divides")
          .defaults_to(version.split_file),
      ParameterDef::integer("split_seed", "seed of the article permutation (article-split) and of the training limit")
          .defaults_to(42)
          .at_least(0),
      ParameterDef::integer("train_limit", "use at most this many training questions (0: all)").defaults_to(0).at_least(0),
      ParameterDef::integer("max_length", "framed tokens per window: question, context window, special tokens")
          .defaults_to(features.max_length())
          .at_least(16)
          .at_most(65536),
      ParameterDef::integer("doc_stride", "tokens two consecutive windows of a context share")
          .defaults_to(features.doc_stride())
          .at_least(0),
      ParameterDef::integer("n_best", "start and end candidates per window in post-processing")
          .defaults_to(postprocess.n_best())
          .at_least(1),
      ParameterDef::integer("max_answer_length", "longest answer in tokens")
          .defaults_to(postprocess.max_answer_length())
          .at_least(1),
      epoch_selection_parameter(),
  };
  if (version.version == 2) {
    list.push_back(ParameterDef::number("null_threshold",
                                        "answer \"\" when the null score exceeds the best span's by more than this "
                                        "(run_qa's null_score_diff_threshold)")
                       .defaults_to(postprocess.null_score_diff_threshold()));
  }
  return owned(std::move(list), version.name);
}

SquadSplitOptions split_options(const SquadVersion& version, const Parameters& config) {
  return SquadSplitOptions()
      .protocol(parse_squad_protocol(config.get<std::string>("protocol")))
      .version(version.version)
      .split_file(config.get<std::string>("split_file"))
      .seed(config.get<uint64_t>("split_seed"))
      .train_limit(config.get<int64_t>("train_limit"));
}

PreparedTask prepare(const SquadVersion& version, const Parameters& config, const InputProcessor& processor,
                     const std::string& data_root) {
  TORCH_CHECK(processor.tokenizer, version.name, " is a text task but the backbone has no tokenizer");
  const int64_t max_length = config.get<int64_t>("max_length");
  TORCH_CHECK(processor.max_length == 0 || max_length <= processor.max_length, version.name, ": max_length ",
              max_length, " exceeds the ", processor.max_length, " tokens the backbone embeds; set max_length <= ",
              processor.max_length);
  const SquadSplitOptions options = split_options(version, config);
  SquadSplits splits = make_squad_splits(resolve_data_root(data_root, data_root), options);
  TORCH_CHECK(version.version == 2 || splits.test.major_version == 1, version.name, ": ", splits.test.source,
              " is a SQuAD v2.0 file (it has unanswerable questions); use task SQuADv2.0");
  const auto features =
      SquadFeatureOptions().max_length(max_length).doc_stride(config.get<int64_t>("doc_stride"));
  auto postprocess = SquadPostprocessOptions()
                         .n_best(config.get<int64_t>("n_best"))
                         .max_answer_length(config.get<int64_t>("max_answer_length"));
  if (version.version == 2) postprocess.null_score_diff_threshold(config.get<double>("null_threshold"));
  const auto split = [&](SquadDataset& dataset) {
    // The scorer follows the task, not the file: v2.0 lets the null answer compete even on a split
    // whose questions all have answers.
    dataset.major_version = version.version;
    return std::make_shared<SquadSplit>(std::move(dataset), *processor.tokenizer, features, postprocess);
  };
  PreparedTask prepared;
  prepared.data.eval_is_test = splits.eval_is_test;
  prepared.data.train = split(splits.train);
  if (splits.eval_is_test) {
    prepared.data.eval = split(splits.test);
  } else {
    prepared.data.eval = split(splits.eval);
    prepared.data.test = split(splits.test);
  }
  prepared.data.report_last_epoch = reports_last_epoch(config);
  prepared.provenance = provenance_json(splits);
  prepared.provenance["epoch_selection"] = config.get<std::string>("epoch_selection");
  prepared.provenance["task"] = version.name;
  prepared.provenance["protocol"] = to_string(options.protocol());
  prepared.provenance["split_seed"] = options.seed();
  prepared.provenance["windows"] = {{"train", prepared.data.train->size()}, {"eval", prepared.data.eval->size()}};
  return prepared;
}

[[maybe_unused]] const bool registered_squad_tasks = [] {
  for (const SquadVersion& entry : kVersions) {
    const SquadVersion* version = &entry;
    register_task({version->name,
                   fmt::format("SQuAD v{} extractive question answering (EM/F1 as the official script)",
                               version->version == 1 ? "1.1" : "2.0"),
                   "SQuAD", squad_parameters(*version), TaskHead{TaskHead::Kind::kSpan, 2},
                   [version](const Parameters& config, const std::string& data_root) {
                     require_squad_files(resolve_data_root(data_root, data_root), split_options(*version, config));
                   },
                   [version](const Parameters& config, const InputProcessor& processor, const std::string& data_root) {
                     return prepare(*version, config, processor, data_root);
                   },
                   [](const MetricValues& test) { return 100.0 * test.at("f1"); }});
  }
  return true;
}();

}  // namespace
}  // namespace capaboost
