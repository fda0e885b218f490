// The GLUE tasks of the paper (and SST-2-10k) as task plugins: ProPETL's or AdaLoRA's split protocol,
// tokenized with the backbone's tokenizer into sequence-classification batches.

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "data/eval_protocol.h"
#include "metrics/glue_metrics.h"
#include "tasks/epoch_selection.h"
#include "tasks/task_registry.h"
#include "train/tokenized_dataset.h"

namespace capaboost {
namespace {

// Shared by every GLUE task; the split defaults are SplitOptions' (the reference's seed 42).
ParameterList glue_parameters() {
  const SplitOptions split;
  return owned(
      {
          ParameterDef::text("protocol", "evaluation split protocol (data/eval_protocol.h)")
              .defaults_to(to_string(split.protocol()))
              .one_of(eval_protocol_names),
          ParameterDef::integer("split_seed", "seed of the split permutation (the reference: 42 for every run seed)")
              .defaults_to(split.seed())
              .at_least(0),
          ParameterDef::integer("train_limit", "use at most this many training examples (0: all)")
              .defaults_to(split.max_train_examples())
              .at_least(0),
          ParameterDef::integer("max_length", "maximum tokens per example (longer ones are truncated)")
              .defaults_to(128)
              .at_least(8)
              .at_most(65536),
          epoch_selection_parameter(),
      },
      "GLUE");
}

// The number the paper's GLUE tables print: ×100 of MCC for CoLA, of the mean of Pearson and
// Spearman for STS-B, and of accuracy for every other task (MRPC and QQP included, unlike the
// selection score, which averages accuracy and F1 there).
double glue_paper_score(const TaskInfo& task, const MetricValues& test) {
  if (task.regression) return 100.0 * (test.at("pearson") + test.at("spearmanr")) / 2.0;
  if (test.count("matthews_correlation") > 0) return 100.0 * test.at("matthews_correlation");
  return 100.0 * test.at("accuracy");
}

PreparedTask prepare(const TaskInfo& task, const Parameters& config, const InputProcessor& processor,
                     const std::string& data_root) {
  TORCH_CHECK(processor.tokenizer, task.name, " is a text task but the backbone has no tokenizer");
  const int64_t max_length = config.get<int64_t>("max_length");
  TORCH_CHECK(processor.max_length == 0 || max_length <= processor.max_length, task.name, ": max_length ",
              max_length, " exceeds the ", processor.max_length, " tokens the backbone embeds; set max_length <= ",
              processor.max_length);
  const auto options = SplitOptions()
                           .protocol(parse_eval_protocol(config.get<std::string>("protocol")))
                           .seed(config.get<uint64_t>("split_seed"))
                           .max_train_examples(config.get<int64_t>("train_limit"));
  const Splits splits = make_glue_splits(task, resolve_data_root(data_root, data_root), options);
  const auto tokenize = [&](const std::vector<Example>& examples) {
    return std::make_shared<TokenizedDataset>(
        TokenizedDataset::tokenize(examples, *processor.tokenizer, task, max_length));
  };
  PreparedTask prepared;
  prepared.data.train = tokenize(splits.train);
  prepared.data.eval = tokenize(splits.eval);
  // Under AdaLoRA's protocol eval is the test set: the trainer scores it once and never reads `test`.
  prepared.data.eval_is_test = splits.eval_is_test;
  if (!splits.eval_is_test) prepared.data.test = tokenize(splits.test);
  prepared.data.report_last_epoch = reports_last_epoch(config);
  prepared.provenance = provenance_json(splits);
  prepared.provenance["epoch_selection"] = config.get<std::string>("epoch_selection");
  return prepared;
}

// The chance levels of the split a run is tested on (its eval half under adalora's protocol, where eval
// is the test set). Reports ask once per cell of a table, and the split depends only on the task, the
// protocol, its seed and the training limit: each is loaded once per process.
ChanceLevels glue_test_chance(const TaskInfo& task, const Parameters& config, const std::string& data_root) {
  static std::mutex mutex;
  static std::map<std::string, ChanceLevels> made;
  const auto options = SplitOptions()
                           .protocol(parse_eval_protocol(config.get<std::string>("protocol")))
                           .seed(config.get<uint64_t>("split_seed"))
                           .max_train_examples(config.get<int64_t>("train_limit"));
  const DataRoot root = resolve_data_root(data_root, data_root);
  const std::string key = fmt::format("{}|{}|{}|{}|{}", task.name, config.get<std::string>("protocol"), options.seed(),
                                      options.max_train_examples(), root.path.string());
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = made.find(key); it != made.end()) return it->second;
  const Splits splits = make_glue_splits(task, root, options);
  ChanceLevels chance = glue_chance_levels(task, splits.eval_is_test ? splits.eval : splits.test);
  // The selection score (a run's test_score) is a mean of metrics: its chance level is theirs averaged,
  // and the average of their standard errors bounds its own.
  chance.level["selection"] = selection_score(task, chance.level);
  chance.standard_error["selection"] = selection_score(task, chance.standard_error);
  return made[key] = chance;
}

[[maybe_unused]] const bool registered_glue_tasks = [] {
  for (const TaskInfo& info : glue_tasks()) {
    const TaskInfo* task = &info;  // glue_tasks() entries live as long as the program
    TaskSpec spec{task->name, fmt::format("GLUE {} ({})", task->name, task->regression ? "regression" : "classification"),
                   task->folder, glue_parameters(),
                   TaskHead{TaskHead::Kind::kSequenceClassification, task->num_labels},
                   [task](const Parameters&, const std::string& data_root) {
                     require_glue_files(*task, resolve_data_root(data_root, data_root), {GlueFile::kTrain, GlueFile::kDev});
                   },
                   [task](const Parameters& config, const InputProcessor& processor, const std::string& data_root) {
                     return prepare(*task, config, processor, data_root);
                   },
                   [task](const MetricValues& test) { return glue_paper_score(*task, test); }};
    spec.chance = [task](const Parameters& config, const std::string& data_root) {
      return glue_test_chance(*task, config, data_root);
    };
    register_task(std::move(spec));
  }
  return true;
}();

}  // namespace
}  // namespace capaboost
