// The `finetune` measure: one fine-tuning run of a backbone with a PEFT method on a task, as the
// paper's Tables 2 and 3 and its appendix ablations run them (best epoch on eval, scored on test).
//
// Parameters: model, method (and the method's: targets, rank, alpha, bottleneck, branches, density,
// mask, …), task (and the task's: protocol, split_seed, train_limit, max_length), lr, epochs,
// batch_size, weight_decay, warmup_ratio, grad_clip, precision, seed — `capaboost measures` lists them with
// their defaults.
// Metrics: eval_score (the LR-selection score), test_score, test_<metric> for each task metric
// (fractions, as Hugging Face reports them), paper_score (the test number the paper's tables print,
// ×100), best_epoch, tuner_dense_percent, tuner_effective_percent, fine_tuned_percent (% FT params of
// any method: the tuners' effective entries plus the backbone parameters it trains), for tuners on
// linear sites their forward FLOPs per token summed over sites (tuner_flops_per_token as executed,
// tuner_flops_per_token_sparse with masked entries free; measure/flop_count.h), trainable, steps,
// wall_seconds, train_tokens_per_second, peak_rss_mib; for weight-update methods (LoRA and its CapaBoost form) the
// ranks of ΔW after the last epoch: rank, rank_min, effective_rank, params_vs_lora_r8.
// Details: every epoch's metrics, rank and singular values per site, the splits' provenance, the backbone,
// and the tuned state kept beside the record (tuners and head at the best epoch, for `capaboost export`).

#include <fmt/format.h>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "measure/flop_count.h"
#include "measures/measure_registry.h"
#include "measures/plugin_parameters.h"
#include "measures/rank_metrics.h"
#include "peft/method_registry.h"
#include "tasks/task_registry.h"
#include "train/trainable_selection.h"
#include "train/trainer.h"

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
      // Added after hundreds of fp32 runs were recorded: fp32 is what they ran, so it stays out of the key.
      ParameterDef::text("precision", "matrix products in fp32, or bf16 (CPU autocast; needs AVX512-BF16 or AMX)")
          .defaults_to(runtime::to_string(trainer.precision()))
          .one_of(runtime::precision_names)
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
      .grad_clip(config.get<double>("grad_clip"))
      .precision(runtime::parse_precision(config.get<std::string>("precision")))
      .seed(config.get<uint64_t>("seed"))
      .interactive(context.interactive)
      .label(label);
}

MeasureResult measure_finetune(const Parameters& config, const RunContext& context) {
  const TaskSpec& task = find_task(config.get<std::string>("task"));
  const MethodSpec& method = find_method(config.get<std::string>("method"));
  // Missing data fails before a backbone is built (the offline encoders take minutes on first use).
  task.require_data(config, context.data_root);
  const runtime::Precision precision = runtime::parse_precision(config.get<std::string>("precision"));
  runtime::require_precision(precision);

  // The run seed also fixes the head's and the tuners' initialisation.
  const auto seed = config.get<uint64_t>("seed");
  torch::manual_seed(seed);
  Backbone backbone = load_backbone(config.get<std::string>("model"), task.head, BackboneContext{context.data_root});
  const std::vector<std::string> sites = method.attach(*backbone.model, config);
  select_trainable_parameters(*backbone.model, method.trains_backbone_parameter, backbone.model->head_prefixes());
  const PreparedTask prepared = task.prepare(config, backbone.processor, context.data_root);

  const std::string label = fmt::format("{} {} seed {}", task.name, method.name, seed);
  const TrainingHooksPtr hooks = method.training_hooks ? method.training_hooks(*backbone.model, config) : nullptr;
  const bool keep_state = !context.tuned_state_path.empty();
  const TrainResult result = train_model(*backbone.model, prepared.data,
                                         trainer_options(config, context, label).keep_best_state(keep_state), hooks.get());
  TORCH_CHECK(result.ok(), task.name, " ", method.name, ": ", result.failure);
  if (keep_state) {
    save_safetensors(context.tuned_state_path, result.best_state, {{"best_epoch", std::to_string(result.best_epoch)}});
  }

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
  measured.metrics["train_tokens_per_second"] = result.train_tokens_per_second;
  measured.metrics["peak_rss_mib"] = result.peak_rss_mib;
  // Ranks of the updates after the last epoch (paper Table 1 measures them "at the final epoch").
  record_rank_metrics(result.site_ranks, result.parameters.tuner_effective, measured);
  measured.details["training"] = result.to_json();
  measured.details["splits"] = prepared.provenance;
  measured.details["backbone"] = backbone.description;
  measured.details["sites"] = sites;
  measured.details["trained_parameters"] = method.trains;
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

[[maybe_unused]] const bool registered = register_measure(
    {"finetune", "fine-tune a backbone with a PEFT method on a task (best eval epoch, scored on test)",
     finetune_parameters(), measure_finetune});

}  // namespace
}  // namespace capaboost::harness
