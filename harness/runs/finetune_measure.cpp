#include "runs/finetune_measure.h"

#include <fmt/format.h>

#include "data/eval_protocol.h"
#include "peft/method_registry.h"
#include "runs/backbones.h"
#include "train/trainable_selection.h"
#include "train/trainer.h"

namespace capaboost::harness {

namespace {

template <typename T>
T get_or(const nlohmann::json& parameters, const char* key, T fallback) {
  return parameters.contains(key) ? parameters.at(key).get<T>() : fallback;
}

// HF TrainingArguments' defaults where the paper's tables are silent (warm-up 0.06 and weight decay
// 0.1 are ProPETL's settings for these runs; max_grad_norm 1.0 is HF's).
TrainerOptions trainer_options(const nlohmann::json& parameters, const RunContext& context, const std::string& label) {
  return TrainerOptions()
      .lr(get_or<double>(parameters, "lr", 5e-4))
      .epochs(get_or<int64_t>(parameters, "epochs", 3))
      .batch_size(get_or<int64_t>(parameters, "batch_size", 16))
      .weight_decay(get_or<double>(parameters, "weight_decay", 0.1))
      .warmup_ratio(get_or<double>(parameters, "warmup_ratio", 0.06))
      .grad_clip(get_or<double>(parameters, "grad_clip", 1.0))
      .seed(get_or<uint64_t>(parameters, "seed", 42))
      .interactive(context.interactive)
      .label(label);
}

// The number the paper's GLUE tables print: ×100 of MCC for CoLA, of the mean of Pearson and
// Spearman for STS-B, and of accuracy for every other task (MRPC and QQP included, unlike the
// selection score, which averages accuracy and F1 there).
double paper_score(const TaskInfo& task, const MetricValues& test) {
  if (task.regression) return 100.0 * (test.at("pearson") + test.at("spearmanr")) / 2.0;
  if (test.count("matthews_correlation") > 0) return 100.0 * test.at("matthews_correlation");
  return 100.0 * test.at("accuracy");
}

}  // namespace

MeasureResult measure_finetune(const nlohmann::json& parameters, const RunContext& context) {
  TORCH_CHECK(parameters.contains("task"), "the finetune measure needs `task` (e.g. RTE)");
  TORCH_CHECK(parameters.contains("model"), "the finetune measure needs `model` (e.g. mini, or a checkpoint directory)");
  TORCH_CHECK(parameters.contains("method"), "the finetune measure needs `method` (see `capaboost methods`)");
  const TaskInfo& task = glue_task(parameters.at("task").get<std::string>());
  const auto split_options = SplitOptions()
                                 .protocol(parse_eval_protocol(get_or<std::string>(parameters, "protocol", "propetl")))
                                 .max_train_examples(get_or<int64_t>(parameters, "train_limit", 0));
  const Splits splits = make_glue_splits(task, resolve_data_root(context.data_root, context.data_root), split_options);

  // The run seed also fixes the head's and the tuners' initialisation.
  const auto seed = get_or<uint64_t>(parameters, "seed", 42);
  torch::manual_seed(seed);
  const std::string method_name = parameters.at("method").get<std::string>();
  const MethodSpec& method = find_method(method_name);
  Backbone backbone = load_backbone(parameters.at("model").get<std::string>(), task.num_labels,
                                    BackboneContext{context.data_root});
  const std::vector<std::string> sites = method.attach(*backbone.model, parameters);
  select_trainable_parameters(*backbone.model, method.trained, {"classifier."});

  const int64_t max_length = get_or<int64_t>(parameters, "max_length", 128);
  TrainingData data;
  data.task = &task;
  data.train = TokenizedDataset::tokenize(splits.train, *backbone.tokenizer, task, max_length);
  data.eval = TokenizedDataset::tokenize(splits.eval, *backbone.tokenizer, task, max_length);
  // Under AdaLoRA's protocol eval is the test set: the trainer scores it once and never reads `test`.
  data.eval_is_test = splits.eval_is_test;
  if (!splits.eval_is_test) data.test = TokenizedDataset::tokenize(splits.test, *backbone.tokenizer, task, max_length);

  const std::string label = fmt::format("{} {} seed {}", task.name, method_name, seed);
  const TrainResult result = train_sequence_classifier(*backbone.model, data, trainer_options(parameters, context, label));
  TORCH_CHECK(result.ok(), task.name, " ", method_name, ": ", result.failure);

  MeasureResult measured;
  measured.metrics["eval_score"] = result.eval_score;
  measured.metrics["test_score"] = result.test_score;
  for (const auto& [name, value] : result.test) measured.metrics["test_" + name] = value;
  measured.metrics["paper_score"] = paper_score(task, result.test);
  measured.metrics["best_epoch"] = result.best_epoch;
  measured.metrics["tuner_dense_percent"] = result.parameters.tuner_dense_percent();
  measured.metrics["tuner_effective_percent"] = result.parameters.tuner_effective_percent();
  measured.metrics["trainable"] = result.parameters.trainable;
  measured.metrics["steps"] = result.steps;
  measured.metrics["wall_seconds"] = result.wall_seconds;
  measured.metrics["train_tokens_per_second"] = result.train_tokens_per_second;
  measured.metrics["peak_rss_mib"] = result.peak_rss_mib;
  measured.details["training"] = result.to_json();
  measured.details["splits"] = provenance_json(splits);
  measured.details["backbone"] = backbone.description;
  measured.details["sites"] = sites;
  measured.details["trained_parameters"] = to_string(method.trained);
  return measured;
}

std::vector<MeasureSpec> builtin_finetune_measures() {
  return {{"finetune", "fine-tune a backbone with a PEFT method on a GLUE task (best eval epoch, scored on test)",
           measure_finetune}};
}

}  // namespace capaboost::harness
