// `capaboost export RUN_KEY DIR`: a finished LoRA or CapaBoost-LoRA run as a Hugging Face PEFT adapter
// (peft/peft_lora_format.h), so a model trained here is used with transformers + peft elsewhere.
//
// The run's model is rebuilt the way it was trained — the backbone from the record's `model`, the
// method attached from the record's config — and the tuned state the run kept (tuners and head at its
// best epoch, checkpoint/tuned_state.h) is loaded on top. After writing, the export is checked: a fresh
// backbone with the written adapter loaded through the suite's own PEFT reader must give the trained
// model's outputs on a few sentences; the largest difference is printed.

#include <fmt/format.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/tuned_state.h"
#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "peft/method_registry.h"
#include "peft/peft_lora_format.h"
#include "plan/data_fingerprint.h"
#include "store/record_store.h"
#include "tasks/task_registry.h"
#include "util/sha256.h"

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// Sentences of a few lengths (padding included) to compare the trained and the exported model on.
const std::vector<std::string> kCheckSentences = {
    "A gripping, beautifully acted film.",
    "The plot never quite comes together, and the ending drags on far longer than it should.",
    "Two men were seen leaving the bank shortly before noon.",
    "It rained.",
};

// The model's outputs on kCheckSentences (eval mode, no gradients): (4, num_labels) or (4, T, 2).
torch::Tensor check_outputs(TaskModelImpl& model, const InputProcessor& processor) {
  TORCH_CHECK(processor.tokenizer, "export: the backbone reads no text, so the export cannot be checked here");
  const BatchEncoding encoded = processor.tokenizer->encode_batch(kCheckSentences);
  Batch batch;
  batch.inputs = {{"input_ids", encoded.input_ids}, {"attention_mask", encoded.attention_mask}};
  batch.examples = static_cast<int64_t>(kCheckSentences.size());
  model.eval();
  torch::NoGradGuard no_grad;
  return model.forward_batch(batch);
}

std::string peft_task_type(const TaskHead& head) {
  return head.kind == TaskHead::Kind::kSpan ? "QUESTION_ANS" : "SEQ_CLS";
}

// A model card: where the adapter comes from and how to load it.
std::string readme(const RunRecord& record, const std::string& base_model, const PeftLoraAdapter& adapter,
                   const std::string& backbone_description, int64_t num_labels) {
  std::string card = fmt::format("# {} — {} ({})\n\n", record.spec, record.label, record.name);
  card += fmt::format("Exported by `capaboost export {}` from the run recorded in runs/{}.json (profile "
                      "{}, finished {}).\n\n",
                      record.key.substr(0, 12), record.key, record.profile, record.finished_at);
  card += fmt::format("- backbone: {}\n", backbone_description);
  card += fmt::format("- LoRA rank {} with lora_alpha {} on {} modules", adapter.config.at("r").dump(),
                      adapter.config.at("lora_alpha").dump(), adapter.config.at("target_modules").size());
  const int64_t branches = record.config.value("branches", int64_t{1});
  if (branches > 1) {
    card += fmt::format(" (CapaBoost: {} branches of rank {} with their masks applied, stacked into one LoRA; "
                        "alpha scaled by {} so that lora_alpha / r is the run's alpha / rank)",
                        branches, record.config.value("rank", int64_t{0}), branches);
  }
  card += "\n";
  card += fmt::format("- metrics of the run: {}\n\n", record.metrics.dump());
  card += "Load it with transformers and peft:\n\n```python\n"
          "from transformers import AutoModelForSequenceClassification\nfrom peft import PeftModel\n\n";
  card += fmt::format("base = AutoModelForSequenceClassification.from_pretrained(\"{}\", num_labels={})\n", base_model,
                      num_labels);
  card += "model = PeftModel.from_pretrained(base, \"<this directory>\")\n```\n";
  return card;
}

int export_run(const SweepOptions& options, const std::string& key_prefix, const std::string& directory) {
  const RecordStore store(options.results_dir);
  const std::string key = store.resolve_key(key_prefix);
  const RunRecord record = *store.read(key);
  const std::string record_file = store.record_path(key);
  TORCH_CHECK(record.ok(), record_file, ": the run failed (", record.reason, "); only finished runs export");
  TORCH_CHECK(record.measure == "finetune", record_file, ": a ", record.measure,
              " run trains no model; export takes finetune runs");
  const std::string state_path = store.tuned_state_path(key);
  TORCH_CHECK(fs::exists(state_path), state_path,
              " does not exist: the run kept no trained weights (it ran before runs kept them). Delete ",
              record_file, " and run its spec again to train it anew");
  // Sealed records name their tuned state's digest: weights damaged or swapped since the run are refused.
  if (!record.tuned_state_sha256.empty()) {
    const std::string actual = sha256_file_hex(state_path);
    TORCH_CHECK(actual == record.tuned_state_sha256, state_path, ": its SHA-256 ", actual.substr(0, 12),
                " is not the one ", record_file, " names (", record.tuned_state_sha256.substr(0, 12),
                "): the weights changed after the run. `capaboost fsck --repair` quarantines it; rerun the run "
                "to train it anew");
  }

  const Parameters config(record.config);
  const std::string model_name = config.get<std::string>("model");
  TORCH_CHECK(backbone_fingerprint(model_name) == record.model_fingerprint, record_file, ": the backbone '", model_name,
              "' has changed since this run (its recipe fingerprint differs), so its weights would not fit it; "
              "rerun the spec to train on the current backbone");
  const TaskSpec& task = find_task(config.get<std::string>("task"));
  const MethodSpec& method = find_method(config.get<std::string>("method"));
  const BackboneContext context{resolve_data_root(options.data_root)};

  // The run seeded torch before building its backbone; so does every rebuild here, which gives
  // randomly initialised backbones (tiny-random, mini-random) the run's weights too.
  const auto seed = config.get<uint64_t>("seed");
  // The trained model: the backbone, the method as the run attached it, the kept state on top.
  torch::manual_seed(seed);
  Backbone trained = load_backbone(model_name, task.head, context);
  method.attach(*trained.model, config);
  load_tuned_state(*trained.model, SafetensorsFile(state_path));
  const std::string base_model = trained.checkpoint_directory.empty() ? model_name : trained.checkpoint_directory;
  const PeftLoraAdapter adapter =
      peft_lora_adapter(*trained.model, trained.model->head_prefixes(), base_model, peft_task_type(task.head));
  save_peft_lora_adapter(adapter, directory);
  {
    std::ofstream card(fs::path(directory) / "README.md");
    card << readme(record, base_model, adapter, trained.description, task.head.num_labels);
  }

  // The check: a fresh backbone with the written adapter must compute what the trained model does.
  torch::manual_seed(seed);
  Backbone reloaded = load_backbone(model_name, task.head, context);
  load_peft_lora_adapter(*reloaded.model, directory);
  const torch::Tensor expected = check_outputs(*trained.model, trained.processor);
  const torch::Tensor actual = check_outputs(*reloaded.model, reloaded.processor);
  const double difference = (expected - actual).abs().max().item<double>();
  const double tolerance = 1e-4 * std::max(1.0, expected.abs().max().item<double>());
  fmt::print("exported run {} ({}, {}) to {}: LoRA rank {} on {} modules, {} tensors\n", key.substr(0, 12), record.label,
             record.name, directory, adapter.config.at("r").dump(), adapter.config.at("target_modules").size(),
             adapter.tensors.size());
  fmt::print("checked: reloaded from the export, the model's outputs on {} sentences differ from the trained "
             "model's by at most {:.3g}\n",
             kCheckSentences.size(), difference);
  TORCH_CHECK(difference <= tolerance, directory, ": the exported adapter does not reproduce the trained model (max ",
              "output difference ", difference, " > ", tolerance, "); please report this with the run record");
  return kExitOk;
}

}  // namespace

Command export_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "export", "Write a finished LoRA or CapaBoost-LoRA run as a Hugging Face PEFT adapter (checked after writing)");
  auto options = std::make_shared<SweepOptions>();
  auto key = std::make_shared<std::string>();
  auto directory = std::make_shared<std::string>();
  sub->add_option("run_key", *key, "the run's key, or its first characters (12 as `plan` and `run` print them)")
      ->required();
  sub->add_option("directory", *directory, "where adapter_config.json, adapter_model.safetensors and README.md go")
      ->required();
  sub->add_option("--results", options->results_dir, "results folder holding runs/")->capture_default_str();
  sub->add_option("--data-root", options->data_root, "GLUE/SQuAD data root (default: $CAPABOOST_DATA_DIR, else ../shared/data)");
  return {sub, [options, key, directory] { return export_run(*options, *key, *directory); }};
}

}  // namespace capaboost::harness
