// The `finetune` measure: one fine-tuning run of a backbone with a PEFT method on a task, as the
// paper's Tables 2 and 3 and its appendix ablations run them (best epoch on eval, scored on test).
//
// Parameters: model, method (and the method's: targets, rank, alpha, bottleneck, branches, density,
// mask, …), task (and the task's: protocol, split_seed, train_limit, max_length), lr, epochs,
// batch_size, weight_decay, warmup_ratio, lr_schedule, grad_clip, precision, seed — `capaboost measures` lists them with
// their defaults.
// Metrics: eval_score (the LR-selection score), test_score, test_<metric> for each task metric
// (fractions, as Hugging Face reports them), paper_score (the test number the paper's tables print,
// ×100), best_epoch, tuner_dense_percent, tuner_effective_percent, fine_tuned_percent (% FT params of
// any method: the tuners' effective entries plus the backbone parameters it trains), for tuners on
// linear sites their forward FLOPs per token summed over sites (tuner_flops_per_token as executed,
// tuner_flops_per_token_sparse with masked entries free; measure/flop_count.h), trainable, steps,
// wall_seconds, train_examples_per_second, train_tokens_per_second (text tasks), eval_examples_per_second,
// eval_tokens_per_second, peak_rss_mib (of the run), adapter_bytes (its tuned state on disk); for weight-update methods (LoRA and its CapaBoost form) the
// ranks of ΔW after the last epoch: rank, rank_min, effective_rank, params_vs_lora_r8.
// Details: every epoch's metrics, rank and singular values per site, the splits' provenance, the backbone
// (and the SHA-256 of the checkpoint weights it loaded), the SHA-256 of the data order (training) and of
// the CapaBoost masks applied (masks_sha256), and the tuned state kept beside the record
// (tuners and head at the best epoch, for `capaboost export`) and its curves (runs/<key>.scalars.csv, digest
// in details.scalars; train/training_scalars.h); with `weight_updates: NAME`, every
// linear site's ΔW after the last epoch in a named file for the capacity measure.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "measure/flop_count.h"
#include "measures/measure_registry.h"
#include "measures/plugin_parameters.h"
#include "measures/rank_metrics.h"
#include "measures/weight_updates_file.h"
#include "models/pretrained_directory.h"
#include "peft/method_registry.h"
#include "sites/tuner.h"
#include "tasks/task_registry.h"
#include "train/trainable_selection.h"
#include "train/trainer.h"
#include "train/training_scalars.h"
#include "util/setup_error.h"
#include "util/sha256.h"

namespace capaboost::harness {
namespace {

// The trainer's own defaults (TrainerOptions) are the parameters' defaults: one home.
ParameterList finetune_parameters() {
  const TrainerOptions trainer;
  return {
      model_parameter(),
      method_parameter(),
      task_parameter(),
      ParameterDef::number("lr", "peak learning rate").defaults_to(trainer.lr()).above(0).at_most(1),
      ParameterDef::integer("epochs", "training epochs").defaults_to(trainer.epochs()).at_least(1).at_most(10000),
      ParameterDef::integer("batch_size", "training batch size").defaults_to(trainer.batch_size()).at_least(1).at_most(65536),
      ParameterDef::number("weight_decay", "AdamW weight decay on matrices").defaults_to(trainer.weight_decay()).at_least(0).at_most(10),
      ParameterDef::number("warmup_ratio", "fraction of steps for linear warm-up").defaults_to(trainer.warmup_ratio()).at_least(0).at_most(1),
      ParameterDef::number("grad_clip", "gradient-norm clipping (0: off)").defaults_to(trainer.grad_clip()).at_least(0),
      // Added after the linear-decay runs were recorded: linear stays out of their keys.
      ParameterDef::text("lr_schedule", "decay after the linear warm-up: linear or cosine (both to 0 at the last step)")
          .defaults_to(to_string(trainer.lr_decay()))
          .one_of(lr_decay_names)
          .unkeyed_at_default(),
      // Added after hundreds of fp32 runs were recorded: fp32 is what they ran, so it stays out of the key.
      ParameterDef::text("precision", "matrix products in fp32, or bf16 (autocast; on a CPU it needs AVX512-BF16 or AMX)")
          .defaults_to(runtime::to_string(trainer.precision()))
          .one_of(runtime::precision_names)
          .unkeyed_at_default(),
      // Added after every run so far was recorded in the seeded order without grouping: off stays out of keys.
      ParameterDef::boolean("group_by_length",
                            "batches of similar lengths, Hugging Face's group_by_length (less padding; order still seeded)")
          .defaults_to(trainer.group_by_length())
          .unkeyed_at_default(),
      ParameterDef::boolean("shuffle_grouped_batches",
                            "with group_by_length, run the grouped batches in a seeded random order, not longest first")
          .defaults_to(trainer.shuffle_grouped_batches())
          .unkeyed_at_default(),
      // 50 is what the first grouped runs used; transformers' own default is 0 here (see data/batching.h).
      ParameterDef::integer("mega_batch_mult",
                            "with group_by_length, batches per length-sorted group; 0: transformers' default, "
                            "min(examples / (4 x batch), 50)")
          .defaults_to(trainer.mega_batch_mult())
          .at_least(0)
          .at_most(100000)
          .unkeyed_at_default(),
      // Where the capacity measure finds real targets (measures/weight_updates_file.h).
      ParameterDef::text("weight_updates",
                         "save every linear site's ΔW after the last epoch as <cache>/updates/<name>.safetensors ('': none)")
          .defaults_to("")
          .unkeyed_at_default(),
  };
}

TrainerOptions trainer_options(const Parameters& config, const RunContext& context, const std::string& label) {
  return TrainerOptions()
      .lr(config.get<double>("lr"))
      .epochs(config.get<int64_t>("epochs"))
      .batch_size(config.get<int64_t>("batch_size"))
      .weight_decay(config.get<double>("weight_decay"))
      .warmup_ratio(config.get<double>("warmup_ratio"))
      .lr_decay(parse_lr_decay(config.get<std::string>("lr_schedule")))
      .grad_clip(config.get<double>("grad_clip"))
      .precision(runtime::parse_precision(config.get<std::string>("precision")))
      .group_by_length(config.get<bool>("group_by_length"))
      .shuffle_grouped_batches(config.get<bool>("shuffle_grouped_batches"))
      .mega_batch_mult(config.get<int64_t>("mega_batch_mult"))
      .seed(config.get<uint64_t>("seed"))
      .interactive(context.interactive)
      .label(label);
}

// Checks a run before anything is built.
void check_run(const Parameters& config, const RunContext& context, const TaskSpec& task) {
  // Missing data fails before a backbone is built (the offline encoders take minutes on first use).
  task.require_data(config, context.data_root);
  const runtime::Precision precision = runtime::parse_precision(config.get<std::string>("precision"));
  runtime::require_precision(precision, context.device.type());
  if (config.get<bool>("shuffle_grouped_batches") && !config.get<bool>("group_by_length")) {
    throw SetupError("shuffle_grouped_batches: true shuffles length-grouped batches; set group_by_length: true too, "
                     "or drop shuffle_grouped_batches (the plain order is shuffled already)");
  }
  if (config.get<int64_t>("mega_batch_mult") != TrainerOptions().mega_batch_mult() && !config.get<bool>("group_by_length")) {
    throw SetupError("mega_batch_mult sizes the groups of length-grouped batches; set group_by_length: true too, "
                     "or drop mega_batch_mult");
  }
}

// The run's model: the run seed fixes the head's and the tuners' initial values; built on the CPU, then
// moved.
Backbone build_model(const Parameters& config, const RunContext& context, const TaskSpec& task,
                     const MethodSpec& method, std::vector<std::string>& sites) {
  torch::manual_seed(config.get<uint64_t>("seed"));
  Backbone backbone = load_backbone(config.get<std::string>("model"), task.head, BackboneContext{context.data_root});
  sites = method.attach(*backbone.model, config);
  select_trainable_parameters(*backbone.model, method.trains_backbone_parameter, backbone.model->head_prefixes());
  // Built, initialised and masked on the CPU from the seed, then moved: the same run on any device.
  backbone.model->to(context.device);
  return backbone;
}

// SHA-256 over every tuner's applied masks (name, shape and bits, in module order); "" without any.
std::string applied_masks_sha256(torch::nn::Module& model) {
  Sha256 digest;
  bool any = false;
  for (const auto& item : model.named_modules()) {
    const auto* tuner = dynamic_cast<const TunerImpl*>(item.value().get());
    if (tuner == nullptr) continue;
    for (const torch::Tensor& mask : tuner->applied_masks()) {
      const torch::Tensor bits = mask.to(torch::kBool).contiguous();  // stored in the factor's dtype
      digest.update(fmt::format("{} {}\n", item.key(), fmt::join(bits.sizes(), "x")));
      digest.update({static_cast<const char*>(bits.data_ptr()), static_cast<size_t>(bits.numel())});
      any = true;
    }
  }
  return any ? digest.hex_digest() : "";
}

// A trained run's metrics and details, and its tuned state saved beside the record.
MeasureResult finetune_result(const RunContext& context, const TaskSpec& task, const MethodSpec& method,
                              const TrainResult& result, const Backbone& backbone, const PreparedTask& prepared,
                              const std::vector<std::string>& sites) {
  TORCH_CHECK(result.ok(), task.name, " ", method.name, ": ", result.failure);
  const bool keep_state = !context.tuned_state_path.empty();
  if (keep_state) {
    save_safetensors(context.tuned_state_path, result.best_state, {{"best_epoch", std::to_string(result.best_epoch)}});
  }
  // The curves beside the record, their digest in it (sealed with it): store/run_scalars.h reads them back.
  if (!context.scalars_path.empty()) write_scalars_csv(context.scalars_path, result.scalars);

  MeasureResult measured;
  measured.metrics["eval_score"] = result.eval_score;
  measured.metrics["test_score"] = result.test_score;
  for (const auto& [name, value] : result.test) measured.metrics["test_" + name] = value;
  measured.metrics["paper_score"] = task.paper_score(result.test);
  measured.metrics["best_epoch"] = result.best_epoch;
  measured.metrics["tuner_dense_percent"] = result.parameters.tuner_dense_percent();
  measured.metrics["tuner_effective_percent"] = result.parameters.tuner_effective_percent();
  measured.metrics["fine_tuned_percent"] = result.parameters.fine_tuned_percent();
  // Tuner FLOPs on the linear sites; absent for methods with none there (full fine-tuning, BitFit,
  // prefix tuning), as the paper's FLOPs column leaves them out.
  double tuner_flops = 0, tuner_flops_sparse = 0;
  for (const SiteFlops& site : site_flops(*backbone.model)) {
    tuner_flops += site.tuner.executed;
    tuner_flops_sparse += site.tuner.sparse_ideal;
  }
  if (tuner_flops > 0) {
    measured.metrics["tuner_flops_per_token"] = tuner_flops;
    measured.metrics["tuner_flops_per_token_sparse"] = tuner_flops_sparse;
  }
  measured.metrics["trainable"] = result.parameters.trainable;
  measured.metrics["steps"] = result.steps;
  measured.metrics["wall_seconds"] = result.wall_seconds;
  // Image runs have no tokens: their rate is in examples only, never a 0 tok/s.
  if (result.train_tokens_per_second > 0) measured.metrics["train_tokens_per_second"] = result.train_tokens_per_second;
  measured.metrics["train_examples_per_second"] = result.train_examples_per_second;
  if (result.eval_tokens_per_second > 0) measured.metrics["eval_tokens_per_second"] = result.eval_tokens_per_second;
  measured.metrics["eval_examples_per_second"] = result.eval_examples_per_second;
  measured.metrics["peak_rss_mib"] = result.peak_rss_mib;
  // What the run stores to be used again: its tuned state (tuners and head, fp32 safetensors) on disk.
  if (keep_state) measured.metrics["adapter_bytes"] = static_cast<double>(std::filesystem::file_size(context.tuned_state_path));
  // Ranks of the updates after the last epoch (paper Table 1 measures them "at the final epoch").
  record_rank_metrics(result.site_ranks, result.parameters.tuner_effective, measured);
  measured.details["training"] = result.to_json();
  measured.details["splits"] = prepared.provenance;
  measured.details["backbone"] = backbone.description;
  // The weights' bits, not only the checkpoint's name: the suite's own encoders rebuild under one cache
  // key with last bits that depend on threads and CPU, and any checkpoint directory can be replaced in
  // place. Randomly initialised backbones load no weights and record none.
  const std::string weights =
      !backbone.weights_file.empty()           ? backbone.weights_file
      : !backbone.checkpoint_directory.empty() ? (std::filesystem::path(backbone.checkpoint_directory) / kWeightsFileName).string()
                                               : std::string();
  if (!weights.empty()) measured.details["backbone_weights"] = {{"file", weights}, {"sha256", sha256_file_hex(weights)}};
  measured.details["sites"] = sites;
  // The masks as applied (on the training device, read back): a CPU and a GPU run of one configuration
  // must record the same digest (harness/scripts/device_check.sh compares them).
  if (const std::string masks = applied_masks_sha256(*backbone.model); !masks.empty()) {
    measured.details["masks_sha256"] = masks;
  }
  measured.details["trained_parameters"] = method.trains;
  if (!context.scalars_path.empty()) {
    measured.details["scalars"] = {{"file", std::filesystem::path(context.scalars_path).filename().string()},
                                   {"points", result.scalars.size()},
                                   {"sha256", sha256_file_hex(context.scalars_path)}};
  }
  if (keep_state) {
    int64_t entries = 0;
    for (const auto& [name, tensor] : result.best_state) entries += tensor.numel();
    // Backbone parameters a method trains (BitFit, full fine-tuning) are not kept: the state is the
    // whole trained model only when the method trains none.
    measured.details["tuned_state"] = {{"tensors", result.best_state.size()},
                                       {"entries", entries},
                                       {"epoch", result.best_epoch},
                                       {"complete", method.trains_backbone_parameter == nullptr}};
  }
  return measured;
}

// Input rows kept per site with `weight_updates` (1,024 × 384 floats: 1.5 MiB a site on minilm).
constexpr int64_t kRecordedInputRows = 1024;

MeasureResult measure_finetune(const Parameters& config, const RunContext& context) {
  const TaskSpec& task = find_task(config.get<std::string>("task"));
  const MethodSpec& method = find_method(config.get<std::string>("method"));
  check_run(config, context, task);
  std::vector<std::string> sites;
  Backbone backbone = build_model(config, context, task, method, sites);
  const PreparedTask prepared = task.prepare(config, backbone.processor, context.data_root);

  const std::string label = fmt::format("{} {} seed {}", task.name, method.name, config.get<uint64_t>("seed"));
  const TrainingHooksPtr hooks = method.training_hooks ? method.training_hooks(*backbone.model, config) : nullptr;
  const std::string updates_name = config.get<std::string>("weight_updates");
  const auto before = updates_name.empty() ? std::map<std::string, torch::Tensor>{} : snapshot_site_weights(*backbone.model);
  // What each site receives from the pre-trained model on held-out examples: the inputs a PEFT module
  // on it would see, for the capacity measure's output error.
  const auto inputs = updates_name.empty() ? std::map<std::string, torch::Tensor>{}
                                           : record_site_inputs(*backbone.model, *prepared.data.eval, kRecordedInputRows);
  const TrainResult result =
      train_model(*backbone.model, prepared.data,
                  trainer_options(config, context, label).keep_best_state(!context.tuned_state_path.empty()), hooks.get());
  MeasureResult measured = finetune_result(context, task, method, result, backbone, prepared, sites);
  if (!updates_name.empty()) {
    const std::string path = save_weight_updates(updates_name, *backbone.model, before, inputs,
                                                 {{"config", config.json().dump()}, {"epochs_trained", std::to_string(config.get<int64_t>("epochs"))}});
    measured.details["weight_updates"] = {{"file", path}, {"sha256", sha256_file_hex(path)}};
  }
  return measured;
}

MetricList finetune_metrics() {
  MetricList metrics = {
      {"eval_score", "the task's selection score on the eval split at the chosen epoch (learning-rate selection)"},
      {"test_score", "the task's selection score on the test split at the chosen epoch"},
      {"test_*", "each task metric on the test split (test_accuracy, test_f1, …), as fractions"},
      {"paper_score", "the test number the paper's tables print (x100)"},
      {"best_epoch", "the epoch reported (best on eval, or the last)"},
      {"tuner_dense_percent", "tuner parameters stored, % of the backbone"},
      {"tuner_effective_percent", "tuner parameters that train, % of the backbone"},
      {"fine_tuned_percent", "% FT params: the tuners' effective entries plus the backbone parameters trained"},
      {"tuner_flops_per_token", "the tuners' forward FLOPs per token as executed (tuners on linear sites)"},
      {"tuner_flops_per_token_sparse", "the same with masked entries free"},
      {"trainable", "parameters that train, the head included"},
      {"steps", "optimizer steps"},
      {"wall_seconds", "wall time of training and evaluation"},
      {"train_examples_per_second", "examples per second of training"},
      {"train_tokens_per_second", "real tokens per second of training (text tasks)"},
      {"eval_examples_per_second", "examples per second of evaluation (eval and test passes)"},
      {"eval_tokens_per_second", "real tokens per second of evaluation (text tasks)"},
      {"peak_rss_mib", "peak resident memory of the run (the process's, reset when the run starts)"},
      {"adapter_bytes", "bytes on disk of the run's tuned state (tuners and head, fp32 safetensors)"},
  };
  for (auto& def : rank_metrics()) metrics.push_back(std::move(def));
  return metrics;
}

// The chance levels of the metrics measure_finetune records, from the task's (TaskSpec::chance): each
// test_<metric>, test_score (the selection score) and paper_score.
nlohmann::json finetune_chance_levels(const Parameters& config, const RunContext& context) {
  const TaskSpec& task = find_task(config.get<std::string>("task"));
  nlohmann::json levels = nlohmann::json::object();
  if (!task.chance) return levels;
  ChanceLevels chance = task.chance(config, context.data_root);
  const auto entry = [](double level, double standard_error) {
    return nlohmann::json{{"level", level}, {"standard_error", standard_error}};
  };
  if (chance.level.count("selection")) {
    levels["test_score"] = entry(chance.level.at("selection"), chance.standard_error.at("selection"));
    chance.level.erase("selection");
    chance.standard_error.erase("selection");
  }
  for (const auto& [name, level] : chance.level) levels["test_" + name] = entry(level, chance.standard_error.at(name));
  levels["paper_score"] = entry(task.paper_score(chance.level), task.paper_score(chance.standard_error));
  return levels;
}

[[maybe_unused]] const bool registered_finetune_measure = [] {
  MeasureSpec measure{"finetune", "fine-tune a backbone with a PEFT method on a task (best eval epoch, scored on test)",
                      finetune_parameters(), finetune_metrics(), measure_finetune};
  measure.chance_levels = finetune_chance_levels;
  return register_measure(std::move(measure));
}();

}  // namespace
}  // namespace capaboost::harness
